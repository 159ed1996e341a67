/* powprof/deprecated.h - the mark of a name kept for programs written for
 * an earlier release: it still links and works, and the compiler says
 * which name replaces it. Removed at 1.0. */
#ifndef POWPROF_DEPRECATED_H
#define POWPROF_DEPRECATED_H

#if defined(__GNUC__) || defined(__clang__)
#define PP_DEPRECATED(use) __attribute__((deprecated("use " use)))
#else
#define PP_DEPRECATED(use)
#endif

#endif
