#include "ops/window.h"

namespace fd {

std::string WindowParams::describe() const {
  return "stride " + std::to_string(conv.stride_h) + "x" + std::to_string(conv.stride_w) + ", dilation " +
         std::to_string(conv.dilation_h) + "x" + std::to_string(conv.dilation_w) +
         (conv.window_h ? ", window " + std::to_string(conv.window_h) + "x" + std::to_string(conv.window_w) : "") +
         (conv.same_padding ? ", same" : ", valid");
}

bool WindowParams::write(WireWriter& w) const {
  for (int v : {conv.stride_h, conv.stride_w, conv.dilation_h, conv.dilation_w, conv.window_h, conv.window_w}) w.i32(v);
  w.flag(conv.same_padding);
  return true;
}

ConvParams read_conv_params(WireReader& r) {
  ConvParams c;
  for (int* v : {&c.stride_h, &c.stride_w, &c.dilation_h, &c.dilation_w, &c.window_h, &c.window_w}) *v = r.i32();
  c.same_padding = r.flag();
  return c;
}

std::shared_ptr<const OpParams> read_window_params(WireReader& r) { return window_op_params(read_conv_params(r)); }

std::shared_ptr<const WindowParams> window_op_params(const ConvParams& conv) {
  auto p = std::make_shared<WindowParams>();
  p->conv = conv;
  return p;
}

const ConvParams& window_of(const Node& node) {
  static const ConvParams kNone;
  const auto* w = dynamic_cast<const WindowParams*>(node.params.get());
  return w ? w->conv : kNone;
}

}  // namespace fd
