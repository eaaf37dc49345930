/* version.h — npusim's version: what `npusim --version` prints and what an
 * output's provenance records. One number for the whole program (library,
 * command line and Python package alike). No data structure. */
#ifndef NPUSIM_VERSION_H
#define NPUSIM_VERSION_H

#define NPUSIM_VERSION "0.2.0"

#endif
