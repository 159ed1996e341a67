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
