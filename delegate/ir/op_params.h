// An op's own parameters: a struct defined in that op's file (ops/), which
// Node::params holds and only that op's rules and runtime step read, so no op
// carries another's fields. The ops not moved here yet keep fields of Node.
#pragma once

#include <string>

namespace fd {

struct OpParams {
  virtual ~OpParams() = default;
  // For plans and messages: the parameters as the op's name reads them ("begin 0,1 size 2,3").
  virtual std::string describe() const = 0;
};

}  // namespace fd
