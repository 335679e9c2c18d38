// An op's own parameters: a struct defined in that op's file (ops/), which
// Node::params holds and only that op's rules and runtime step read, so no op
// carries another's fields.
#pragma once

#include <memory>
#include <string>

#include "ir/op_types.h"

namespace fd {

class WireWriter;
class WireReader;

struct OpParams {
  virtual ~OpParams() = default;
  // For plans and messages: the parameters as the op's name reads them ("begin 0,1 size 2,3").
  virtual std::string describe() const = 0;
  // Into a partition string (ir/serialize.h), for the op's reader (AnchorInfo::read_params)
  // to read back; false: these do not travel (no front end that serializes makes the op).
  virtual bool write(WireWriter&) const { return false; }
};

// Reads the parameters of an `op` node back from a partition string (the op's
// own reader: ops/op_registry.h read_anchor_params); null, with r.fail(), if they do not read.
using ParamsReader = std::shared_ptr<const OpParams> (*)(AnchorOp op, WireReader& r);

// An op's parameters as its own type: the op's rules and step know which they hold.
template <class P>
const P& params_as(const std::shared_ptr<const OpParams>& p) {
  return static_cast<const P&>(*p);
}

}  // namespace fd
