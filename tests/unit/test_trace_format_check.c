/* pv_trace_format_is_safe: which formats are kept from libtraceevent. */
#include "decode/trace_format_check.h"
#include "unit_check.h"

/* A sched_switch-like format: scalar, array and __data_loc fields. */
#define FIELDS                                                                   \
    "name: demo\nID: 7\nformat:\n"                                               \
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"       \
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"              \
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                 \
    "\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n\n"

static void check_format(const char *text, bool want, const char *what)
{
    bool got = pv_trace_format_is_safe(text);
    check(got == want, what, "got %s, want %s", got ? "safe" : "unsafe", want ? "safe" : "unsafe");
}

int main(void)
{
    check_format(FIELDS "print fmt: \"%s %ld\", REC->prev_comm, REC->prev_state\n", true,
                 "declared scalar and array fields are safe");
    check_format(FIELDS "print fmt: \"%s\", __get_str(name)\n", true,
                 "a __data_loc field used through __get_str is safe");
    check_format(FIELDS "print fmt: \"%s\", __print_flags(REC->prev_state & 3, \"|\", "
                        "{ 1, \"S\" })\n", true,
                 "__print_flags of a declared field is safe");
    check_format(FIELDS "print fmt: \"%s\", __print_flags(REC->0rev_state & 3, \"|\", "
                        "{ 1, \"S\" })\n", false,
                 "__print_flags of an undeclared field (libtraceevent's NULL dereference) is unsafe");
    check_format(FIELDS "print fmt: \"%d\", REC->next_pid\n", false,
                 "any undeclared REC-> field is unsafe");
    check_format(FIELDS "print fmt: \"%d\", REC->\n", false, "REC-> with no name is unsafe");
    check_format(FIELDS "print fmt: \"%d\", REC->common_type\n", true,
                 "a common_* field the format declares is safe");
    check_format("name: demo\nID: 7\nformat:\n", true, "a format without a print fmt is safe");
    check_format("print fmt: \"%d\", REC->x\n", false, "a print fmt with no fields declared is unsafe");
    return failures ? 1 : 0;
}
