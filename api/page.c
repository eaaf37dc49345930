/* page.c — the web page `npusim serve` answers GET / with. The page
 * is web/index.html, kept as a real HTML file so it reads and diffs as one;
 * the Makefile turns it into the C string literal included here
 * ($(BUILD)/gen/serve_page.inc), so the binary carries it and serves
 * nothing from disk. No data structure of its own. */
#include "api/api.h"

const char serve_page[] =
#include "serve_page.inc"
    ;
