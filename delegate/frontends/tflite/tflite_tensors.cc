#include "frontends/tflite/tflite_tensors.h"

#include "ir/shape.h"

namespace fd {

Shape shape_of(const TfLiteTensor& t) {
  Shape s;
  if (t.dims)
    for (int i = 0; i < t.dims->size; ++i) s.push_back(t.dims->data[i]);
  return s;
}

bool int_values(const TfLiteTensor& x, std::vector<int64_t>* out) {
  if (!x.data || (x.type != kTfLiteInt32 && x.type != kTfLiteInt64)) return false;
  const int64_t count = num_elements(shape_of(x));
  if (static_cast<size_t>(count) * (x.type == kTfLiteInt32 ? 4 : 8) > x.bytes) return false;
  out->clear();
  for (int64_t i = 0; i < count; ++i)
    out->push_back(x.type == kTfLiteInt32 ? static_cast<const int32_t*>(x.data)[i]
                                          : static_cast<const int64_t*>(x.data)[i]);
  return true;
}

bool constant_ints(TfLiteContext* ctx, int t, std::vector<int64_t>* out) {
  return ctx->tensors[t].allocation_type == kTfLiteMmapRo && int_values(ctx->tensors[t], out);
}

}  // namespace fd
