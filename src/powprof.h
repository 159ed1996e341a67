/* powprof.h - the public interface of libpowprof (everything but the
 * command line). Link with: -lpowprof -lpthread -ldl -lm
 *
 *   devices/device.h  power sources behind one interface (watts)
 *   battery/battery.h battery models driven by a trace (CVODE)
 *   src/config.h      configuration files (libconfig syntax)
 *   src/sampler.h     fixed-rate sampling thread on absolute deadlines
 *   src/trace.h       layer-1 traces in memory and as CSV
 *   src/meter.h       run one command while sampling
 *   src/proc.h        running programs from argv (no shell)
 *   src/clock.h       injectable monotonic clock
 *   src/log.h         the logger (errors are returned as -errno and logged)
 *   src/util.h        strict parsing, atomic file replacement
 */
#ifndef POWPROF_H
#define POWPROF_H

#include "battery/battery.h"
#include "devices/device.h"
#include "src/clock.h"
#include "src/config.h"
#include "src/log.h"
#include "src/meter.h"
#include "src/proc.h"
#include "src/sampler.h"
#include "src/trace.h"
#include "src/util.h"

#endif
