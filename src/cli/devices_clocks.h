/* devices_clocks.h - `powprof devices --clocks`: what can be set. */
#ifndef PP_CLI_DEVICES_CLOCKS_H
#define PP_CLI_DEVICES_CLOCKS_H

/* Print the clock domains under root (NULL: /), each with its governor,
 * its frequency now, its table, how powprof sets it and whether this user
 * may (else the file that needs root), then the power modes of
 * nvpmodel.conf; text or one JSON object. The exit status: 0, or 1 when
 * the tree cannot be read. */
int pp_cli_devices_clocks(const char *root, int json);

#endif
