#include "decode/trace_format_check.h"

#include <stddef.h>
#include <string.h>

/* The most fields a format may declare for this check; real ones have tens. */
#define MAX_FIELDS 1024

typedef struct {
    const char *name;
    size_t len;
} field_name;

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The name a "field:TYPE NAME[N];" declaration ending at end declares. */
static field_name declared_name(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end > start && end[-1] == ']') {
        while (end > start && end[-1] != '[')
            end--;
        if (end > start)
            end--;
    }
    const char *name = end;
    while (name > start && is_ident_char(name[-1]))
        name--;
    field_name f = { name, (size_t)(end - name) };
    return f;
}

static bool is_declared(const field_name *fields, size_t nr, const char *name, size_t len)
{
    for (size_t i = 0; i < nr; i++)
        if (fields[i].len == len && memcmp(fields[i].name, name, len) == 0)
            return true;
    return false;
}

bool pv_trace_format_is_safe(const char *text)
{
    static const char field_tag[] = "field:";
    static const char print_tag[] = "print fmt:";
    static const char rec_tag[] = "REC->";
    const char *print_fmt = strstr(text, print_tag);
    if (!print_fmt)
        return true;  /* nothing refers to a field */
    field_name fields[MAX_FIELDS];
    size_t nr = 0;
    for (const char *p = strstr(text, field_tag); p && p < print_fmt; p = strstr(p, field_tag)) {
        p += sizeof field_tag - 1;
        const char *semicolon = strchr(p, ';');
        if (!semicolon || semicolon > print_fmt)
            break;
        if (nr == MAX_FIELDS)
            return false;
        fields[nr++] = declared_name(p, semicolon);
        p = semicolon;
    }
    for (const char *p = strstr(print_fmt, rec_tag); p; p = strstr(p, rec_tag)) {
        p += sizeof rec_tag - 1;
        size_t len = 0;
        while (is_ident_char(p[len]))
            len++;
        if (len == 0 || !is_declared(fields, nr, p, len))
            return false;
        p += len;
    }
    return true;
}
