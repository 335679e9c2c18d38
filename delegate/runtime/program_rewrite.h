// The rewrites a program goes through once built (runtime/program.cc): each
// replaces instructions by one kernel op of the same math, and returns how many
// it made (the plan's programs show the ops they leave).
#pragma once

#include "runtime/program.h"

namespace fd {

// x * LOGISTIC(x) (or the builtin-rounding logistic) into one Swish step, where
// the logistic has no other reader.
int fuse_swish(Program& p);
// MUL feeding only an ADD or SUB into one Fma / Fms / Fnma.
int fuse_multiply_add(Program& p);

}  // namespace fd
