/* opt.h - a command's options as one table (after git's parse-options):
 * each row names an option, its value's kind and destination and its line
 * of --help; one parser and one usage printer read the table. CLI only. */
#ifndef PP_CLI_OPT_H
#define PP_CLI_OPT_H

#include <getopt.h> /* optind: the first operand after pp_opt_parse */
#include <math.h>
#include <stdio.h>

/* Exit statuses of powprof's own failures (a command's status passes through). */
#define PP_EXIT_USAGE 2
#define PP_EXIT_FAILURE 125

typedef enum pp_opt_kind {
    PP_OPTK_END,      /* the table's last row */
    PP_OPTK_HELP,     /* -h, --help: the usage on stdout */
    PP_OPTK_BOOL,     /* no value: *(int *)value = 1 */
    PP_OPTK_STRING,   /* *(const char **)value = the argument */
    PP_OPTK_DOUBLE,   /* *(double *)value, a number within [lo, hi] */
    PP_OPTK_INT,      /* *(int *)value, a whole number within [lo, hi] */
    PP_OPTK_PARSE,    /* parse(argument, value); refused with why */
    PP_OPTK_CALLBACK, /* fn(row, argument, command) */
} pp_opt_kind;

/* Ends of a PP_OPTK_DOUBLE's range left out of it. */
#define PP_OPT_LO_OPEN 1
#define PP_OPT_HI_OPEN 2

typedef struct pp_opt pp_opt;
/* A callback row's argument into row->value: 0, or -1 (said why, naming
 * the option and the argument). */
typedef int (*pp_opt_fn)(const pp_opt *row, const char *arg, const char *cmd);
/* A parse row's argument into value: 0, or < 0 (the parser says the row's
 * why). */
typedef int (*pp_opt_parse_fn)(const char *arg, void *value);

struct pp_opt {
    pp_opt_kind kind;
    int short_name;        /* 0: none */
    const char *long_name; /* NULL: none */
    void *value;           /* where the value goes */
    const char *argh;      /* the value's name in --help; NULL: the option takes none */
    const char *help;      /* its --help text; a '\n' starts an indented line */
    pp_opt_fn fn;          /* PP_OPTK_CALLBACK */
    pp_opt_parse_fn parse; /* PP_OPTK_PARSE */
    double lo, hi;         /* PP_OPTK_DOUBLE, PP_OPTK_INT: the range */
    int open;              /* PP_OPT_LO_OPEN | PP_OPT_HI_OPEN */
    const char *why;       /* what a value refused is told: "--NAME ARG: WHY" (a
                              PP_OPTK_DOUBLE without: any number) */
};

#define PP_OPT_ROW(k, s, l, v, a, h, ...) \
    {.kind = k, .short_name = s, .long_name = l, .value = v, .argh = a, .help = h, __VA_ARGS__}
#define PP_OPT_HELP_ROW PP_OPT_ROW(PP_OPTK_HELP, 'h', "help", NULL, NULL, "this help", .lo = 0)
#define PP_OPT_BOOL(s, l, v, h) PP_OPT_ROW(PP_OPTK_BOOL, s, l, v, NULL, h, .lo = 0)
#define PP_OPT_STRING(s, l, v, a, h) PP_OPT_ROW(PP_OPTK_STRING, s, l, v, a, h, .lo = 0)
#define PP_OPT_CALLBACK(s, l, v, a, h, f) PP_OPT_ROW(PP_OPTK_CALLBACK, s, l, v, a, h, .fn = f)
#define PP_OPT_PARSE(s, l, v, a, h, p, w) \
    PP_OPT_ROW(PP_OPTK_PARSE, s, l, v, a, h, .parse = p, .why = w)
#define PP_OPT_NUMBER(s, l, v, a, h) PP_OPT_ROW(PP_OPTK_DOUBLE, s, l, v, a, h, .lo = 0)
#define PP_OPT_RANGE(s, l, v, a, h, lo_, hi_, open_, why_) \
    PP_OPT_ROW(PP_OPTK_DOUBLE, s, l, v, a, h, .lo = lo_, .hi = hi_, .open = open_, .why = why_)
#define PP_OPT_INT(s, l, v, a, h, lo_, hi_) \
    PP_OPT_ROW(PP_OPTK_INT, s, l, v, a, h, .lo = lo_, .hi = hi_)
#define PP_OPT_END {.kind = PP_OPTK_END}
/* -h, --help and the end: a table's last line. */
#define PP_OPT_HELP_END PP_OPT_HELP_ROW, PP_OPT_END

/* A command: its name as typed ("battery fit"), the text of --help before
 * the options (usage line and description) and after them (NULL: none),
 * its table, getopt's flags ("+": stop at the first operand; NULL: none)
 * and the width of the options' names in --help (0: 22). */
typedef struct pp_command {
    const char *name, *head, *tail;
    const pp_opt *opts;
    const char *flags;
    int width;
} pp_command;

/* argv by c's table: each row's value set in the order given. 0 with
 * optind at the first operand, 1 after --help (printed on stdout), or
 * PP_EXIT_USAGE (said why on stderr: the option and its value). */
int pp_opt_parse(const pp_command *c, int argc, char **argv);
/* c's --help: head, a line per row, tail. */
void pp_opt_usage(const pp_command *c, FILE *fp);

/* After pp_opt_parse: exactly one operand left (what it is, for the
 * message). 0, or PP_EXIT_USAGE said as "powprof CMD: one WHAT expected". */
int pp_opt_one_operand(const char *cmd, const char *what, int argc);

#endif
