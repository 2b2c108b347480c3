/* GNU readline as a system library (pkg-config readline). Used by the `flickr` REPL.
   readline.h uses FILE without including <stdio.h>, so it comes first. In Swift 6 mode import
   it with `@preconcurrency import CReadline` (its C globals are mutable). */
#ifndef CREADLINE_SHIM_H
#define CREADLINE_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif
