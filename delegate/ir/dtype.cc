#include "ir/dtype.h"

namespace fd {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "float32";
    case DType::kF16: return "float16";
    case DType::kI8: return "int8";
    case DType::kU8: return "uint8";
    case DType::kI32: return "int32";
    case DType::kI64: return "int64";
    case DType::kBool: return "bool";
    case DType::kOther: break;
  }
  return "other";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool: return 1;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kOther: break;
  }
  return 0;
}

}  // namespace fd
