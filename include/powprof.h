/* powprof.h - the public interface of libpowprof, for programs that measure
 * power and model a battery on board (a drone's companion computer, a
 * Jetson). Build with: cc app.c $(pkg-config --cflags --libs powprof)
 *
 *   <powprof/device.h>    open a power source and read its rails (watts)
 *   <powprof/trace.h>     read a recorded trace (CSV)
 *   <powprof/battery.h>   drain a modelled battery with a load or a trace
 *   <powprof/model.h>     a results folder's layer-2 model: predict any
 *                         configuration, with a 90 % band
 *   <powprof/plan.h>      the best configuration a battery carries through
 *                         a mission
 *   <powprof/governor.h>  the mission re-planned in flight from the battery's
 *                         readings: the setting to run now
 *   <powprof/meter.h>     the energy of one command, as `powprof meter`
 *   <powprof/log.h>       where error messages go (every function returns 0
 *                         or a negative errno and logs why)
 *   <powprof/component.h> the interface of component modules (workloads),
 *                         for `powprof profile`; not included here
 *
 * Every header may be included from C++ (extern "C").
 *
 * Handles. A handle is made by pp_X_open (from something outside the
 * program: a results folder, a trace file, a power source) or pp_X_new
 * (from values), and released by pp_X_close, whichever made it; texts the
 * library returns are released by pp_free. A measurement is begun by
 * pp_meter_start and ended by pp_meter_stop, which releases its handle.
 * The names of 0.1 (pp_model_load, pp_device_open_by_name,
 * pp_battery_free, pp_governor_free) still link, marked deprecated
 * (powprof/deprecated.h); they go at 1.0.
 *
 * Threads. Calls on different handles (pp_model, pp_battery_params,
 * pp_trace, pp_governor, pp_meter, pp_device) may run at the same time on
 * different threads; the calls on one handle are made one at a time (the
 * caller serializes them), and a handle is closed when no call on it is in
 * flight (a governor's model after the governor). A handle of another
 * kind, a closed one or NULL is refused (-EBADF, logged with the
 * function's name), never read through (pp_device excepted). The log sink
 * (powprof/log.h) is called on the thread that logs, within the call that
 * logs (a meter's sampler logs on its own thread): a sink that keeps its
 * messages per thread gives each call its own errors. pp_meter_command
 * runs one command at a time per process (it forwards the signals it gets
 * to that command). pp_log_set_sink and pp_log_set_level: before threads
 * start.
 */
#ifndef POWPROF_H
#define POWPROF_H

/* The version of these headers: the release they come with (the Makefile's
 * VERSION and `powprof --version`; a test keeps them equal). */
#define POWPROF_VERSION_MAJOR 0
#define POWPROF_VERSION_MINOR 1
#define POWPROF_VERSION_PATCH 0
#define POWPROF_VERSION "0.1.0"

#include "powprof/battery.h"
#include "powprof/device.h"
#include "powprof/governor.h"
#include "powprof/log.h"
#include "powprof/meter.h"
#include "powprof/model.h"
#include "powprof/plan.h"
#include "powprof/trace.h"

#endif
