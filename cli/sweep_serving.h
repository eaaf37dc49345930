/* sweep_serving.h — `npusim sweep --spec` of a serving spec (cli/sweep_serving.c). */
#ifndef NPUSIM_CLI_SWEEP_SERVING_H
#define NPUSIM_CLI_SWEEP_SERVING_H

#include "cli/cli.h"

/* Runs the serving sweep of spec; summary, slo, select may be NULL. An exit status. */
int sweep_serving(const char *spec, const char *summary, const char *slo, const char *select,
                  const struct shared_opts *sh);

#endif
