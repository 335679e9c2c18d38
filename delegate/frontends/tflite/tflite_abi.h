// The part of TensorFlow Lite's C ABI (tensorflow/lite/core/c/common.h) that
// fusedelegate uses, declared here because no registry ships TFLite's headers.
// Every size and offset we rely on is pinned below; the values were measured in
// tf.lite 2.21, tflite-runtime 2.14 and ai-edge-litert 2.3 (x86_64), identical
// in all three (../shared/notes/tflite-abi.md). LP64 only.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef enum { kTfLiteOk = 0, kTfLiteError = 1, kTfLiteDelegateError = 2 } TfLiteStatus;

// The runtime may hold values this header does not list (newer types): a fixed
// underlying int keeps every value representable, so range checks stay real.
typedef enum : int {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
} TfLiteType;

typedef enum : int {
  kTfLiteMemNone = 0,
  kTfLiteMmapRo = 1,
  kTfLiteArenaRw = 2,
  kTfLiteArenaRwPersistent = 3,
  kTfLiteDynamic = 4,
  kTfLitePersistentRo = 5,
  kTfLiteCustom = 6,
  kTfLiteVariantObject = 7,
} TfLiteAllocationType;

typedef enum : int {
  kTfLiteActNone = 0,
  kTfLiteActRelu = 1,
  kTfLiteActReluN1To1 = 2,
  kTfLiteActRelu6 = 3,
  kTfLiteActTanh = 4,
  kTfLiteActSignBit = 5,
  kTfLiteActSigmoid = 6,
} TfLiteFusedActivation;

enum { kTfLiteDelegateFlagsAllowDynamicTensors = 1 };

typedef struct TfLiteIntArray {
  int size;
  int data[];
} TfLiteIntArray;

typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

typedef struct TfLiteQuantization {
  int type;  // kTfLiteAffineQuantization: params is a TfLiteAffineQuantization
  void* params;
} TfLiteQuantization;
enum { kTfLiteNoQuantization = 0, kTfLiteAffineQuantization = 1 };

// The legacy layout all three runtimes measured here use (TF master has
// {float* data; int size; bool owning}): a reader checks size against the shape.
typedef struct TfLiteFloatArray {
  int size;
  float data[];
} TfLiteFloatArray;

typedef struct TfLiteAffineQuantization {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

// A sparse constant's storage format (the schema's SparsityParameters). The
// interpreter copies the schema's uint8 / uint16 / int32 segment and index
// vectors into TfLiteIntArrays; a dense level has neither.
typedef enum : int { kTfLiteDimDense = 0, kTfLiteDimSparseCSR = 1 } TfLiteDimensionType;

typedef struct TfLiteDimensionMetadata {
  TfLiteDimensionType format;
  int dense_size;
  TfLiteIntArray* array_segments;
  TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

typedef struct TfLiteSparsity {
  TfLiteIntArray* traversal_order;
  TfLiteIntArray* block_map;
  TfLiteDimensionMetadata* dim_metadata;  // one per entry of traversal_order
  int dim_metadata_size;
} TfLiteSparsity;

typedef struct TfLiteTensor {
  TfLiteType type;
  void* data;
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  TfLiteAllocationType allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  struct TfLiteDelegate* delegate;
  int buffer_handle;
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  const TfLiteSparsity* sparsity;  // non-null: data holds the stored values only
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;

typedef struct TfLiteNode {
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
  struct TfLiteDelegate* delegate;
  bool might_have_side_effect;
} TfLiteNode;

struct TfLiteRegistration;

typedef struct TfLiteContext {
  size_t tensors_size;
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext*, TfLiteIntArray** plan);
  TfLiteTensor* tensors;
  void* impl_;
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor*, TfLiteIntArray* new_size);
  void (*ReportError)(struct TfLiteContext*, const char* format, ...);
  void* AddTensors;
  TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext*, int node_index,
                                         TfLiteNode** node, struct TfLiteRegistration** reg);
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext*,
                                                        struct TfLiteRegistration registration,
                                                        const TfLiteIntArray* nodes_to_replace,
                                                        struct TfLiteDelegate* delegate);
  int recommended_num_threads;
} TfLiteContext;

typedef struct TfLiteRegistration {
  void* (*init)(TfLiteContext*, const char* buffer, size_t length);
  void (*free)(TfLiteContext*, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*);
  TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*);
  const char* (*profiling_string)(const TfLiteContext*, const TfLiteNode*);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  void* registration_external;  // must be NULL
  void* async_kernel;           // must be NULL
  uint64_t inplace_operator;
  // Zeroed padding: insurance against fields appended by newer runtimes.
  uint64_t reserved[4];
} TfLiteRegistration;

typedef struct TfLiteDelegate {
  void* data_;
  TfLiteStatus (*Prepare)(TfLiteContext*, struct TfLiteDelegate*);
  void* CopyFromBufferHandle;
  void* CopyToBufferHandle;
  void* FreeBufferHandle;
  int64_t flags;
  void* opaque_delegate_builder;  // must be NULL
} TfLiteDelegate;

typedef struct TfLiteDelegateParams {
  TfLiteDelegate* delegate;
  TfLiteIntArray* nodes_to_replace;
  TfLiteIntArray* input_tensors;
  TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

// Builtin parameter structs (tensorflow/lite/core/c/builtin_op_data.h).
typedef struct { TfLiteFusedActivation activation; } TfLiteFusedActivationParams;  // ADD SUB MUL DIV
typedef struct { float alpha; } TfLiteLeakyReluParams;
typedef struct { bool approximate; } TfLiteGeluParams;
typedef struct {
  TfLiteFusedActivation activation;
  int weights_format;  // 0: default; others (shuffled int8) are not ours
  bool keep_num_dims;
  bool asymmetric_quantize_inputs;
} TfLiteFullyConnectedParams;
typedef enum { kTfLitePaddingUnknown = 0, kTfLitePaddingSame = 1, kTfLitePaddingValid = 2 } TfLitePadding;
// Newer runtimes append fields (quantized_bias_type); we read only this prefix.
typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  TfLiteFusedActivation activation;
  int dilation_width_factor;
  int dilation_height_factor;
} TfLiteConvParams;
typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  int depth_multiplier;  // unreliable in old models: we take it from the filter's shape
  TfLiteFusedActivation activation;
  int dilation_width_factor;
  int dilation_height_factor;
} TfLiteDepthwiseConvParams;
typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  int filter_width;
  int filter_height;
  TfLiteFusedActivation activation;
  // then the padding the runtime computed, which we do not read
} TfLitePoolParams;
typedef struct { bool keep_dims; } TfLiteReducerParams;
typedef enum {
  kTfLiteMirrorPaddingUnknown = 0,
  kTfLiteMirrorPaddingReflect = 1,
  kTfLiteMirrorPaddingSymmetric = 2,
} TfLiteMirrorPaddingMode;
typedef struct { TfLiteMirrorPaddingMode mode; } TfLiteMirrorPaddingParams;
typedef struct { float beta; } TfLiteSoftmaxParams;
typedef struct {
  int axis;  // may be negative: from the end
  TfLiteFusedActivation activation;
} TfLiteConcatenationParams;
typedef struct {
  bool adj_x;
  bool adj_y;
  bool asymmetric_quantize_inputs;
} TfLiteBatchMatMulParams;
// Version 1 of the op has the first three fields; version 4 added the
// activation (tflite-runtime 2.14, ai-edge-litert 2.3 and TF 2.21 all run
// version 4), later versions quantized_bias_type, which we do not read.
typedef struct {
  TfLitePadding padding;
  int stride_width;
  int stride_height;
  TfLiteFusedActivation activation;
} TfLiteTransposeConvParams;
typedef struct {  // read where RESHAPE has no int32 shape vector (old models)
  int shape[8];
  int num_dimensions;
} TfLiteReshapeParams;
typedef struct {
  int squeeze_dims[8];
  int num_squeeze_dims;  // 0: every axis of size 1
} TfLiteSqueezeParams;
typedef struct {  // RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR alike
  bool align_corners;
  bool half_pixel_centers;
} TfLiteResizeParams;
typedef struct {
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  bool offset;  // from STRIDED_SLICE version 8 on: end counts from begin
} TfLiteStridedSliceParams;
typedef struct {
  int axis, batch_dims;
} TfLiteGatherParams;
typedef struct { int block_size; } TfLiteDepthSpaceParams;
typedef struct { int num_splits; } TfLiteSplitParams;
typedef struct {
  int values_count, axis;
} TfLitePackParams;  // TfLiteSplitVParams alike
typedef struct {
  int num, axis;
} TfLiteUnpackParams;  // TfLiteDepthToSpaceParams, TfLiteSpaceToDepthParams

}  // extern "C"

// Pinned layout: if any of these fail, the header no longer matches the runtimes.
static_assert(sizeof(void*) == 8, "fusedelegate supports LP64 targets only");
static_assert(sizeof(TfLiteIntArray) == 4, "TfLiteIntArray");
static_assert(offsetof(TfLiteConvParams, activation) == 12, "TfLiteConvParams.activation");
static_assert(offsetof(TfLiteConvParams, dilation_height_factor) == 20, "TfLiteConvParams.dilation_height_factor");
static_assert(offsetof(TfLiteDepthwiseConvParams, activation) == 16, "TfLiteDepthwiseConvParams.activation");
static_assert(offsetof(TfLitePoolParams, activation) == 20, "TfLitePoolParams.activation");
static_assert(offsetof(TfLiteDepthwiseConvParams, dilation_height_factor) == 24,
              "TfLiteDepthwiseConvParams.dilation_height_factor");
static_assert(offsetof(TfLiteAffineQuantization, quantized_dimension) == 16, "TfLiteAffineQuantization");
static_assert(sizeof(TfLiteDimensionMetadata) == 24, "TfLiteDimensionMetadata size");
static_assert(offsetof(TfLiteDimensionMetadata, dense_size) == 4, "TfLiteDimensionMetadata.dense_size");
static_assert(offsetof(TfLiteDimensionMetadata, array_segments) == 8, "TfLiteDimensionMetadata.array_segments");
static_assert(offsetof(TfLiteDimensionMetadata, array_indices) == 16, "TfLiteDimensionMetadata.array_indices");
static_assert(sizeof(TfLiteSparsity) == 32, "TfLiteSparsity size");
static_assert(offsetof(TfLiteSparsity, block_map) == 8, "TfLiteSparsity.block_map");
static_assert(offsetof(TfLiteSparsity, dim_metadata) == 16, "TfLiteSparsity.dim_metadata");
static_assert(offsetof(TfLiteSparsity, dim_metadata_size) == 24, "TfLiteSparsity.dim_metadata_size");
static_assert(sizeof(TfLiteTensor) == 112, "TfLiteTensor size");
static_assert(offsetof(TfLiteTensor, data) == 8, "TfLiteTensor.data");
static_assert(offsetof(TfLiteTensor, dims) == 16, "TfLiteTensor.dims");
static_assert(offsetof(TfLiteTensor, params) == 24, "TfLiteTensor.params");
static_assert(offsetof(TfLiteTensor, allocation_type) == 32, "TfLiteTensor.allocation_type");
static_assert(offsetof(TfLiteTensor, bytes) == 40, "TfLiteTensor.bytes");
static_assert(offsetof(TfLiteTensor, name) == 56, "TfLiteTensor.name");
static_assert(offsetof(TfLiteTensor, delegate) == 64, "TfLiteTensor.delegate");
static_assert(offsetof(TfLiteTensor, quantization) == 80, "TfLiteTensor.quantization");
static_assert(offsetof(TfLiteTensor, sparsity) == 96, "TfLiteTensor.sparsity");
static_assert(offsetof(TfLiteTensor, dims_signature) == 104, "TfLiteTensor.dims_signature");
static_assert(sizeof(TfLiteNode) == 80, "TfLiteNode size");
static_assert(offsetof(TfLiteNode, user_data) == 32, "TfLiteNode.user_data");
static_assert(offsetof(TfLiteNode, builtin_data) == 40, "TfLiteNode.builtin_data");
static_assert(offsetof(TfLiteNode, delegate) == 64, "TfLiteNode.delegate");
static_assert(offsetof(TfLiteContext, GetExecutionPlan) == 8, "TfLiteContext.GetExecutionPlan");
static_assert(offsetof(TfLiteContext, tensors) == 16, "TfLiteContext.tensors");
static_assert(offsetof(TfLiteContext, ResizeTensor) == 32, "TfLiteContext.ResizeTensor");
static_assert(offsetof(TfLiteContext, ReportError) == 40, "TfLiteContext.ReportError");
static_assert(offsetof(TfLiteContext, GetNodeAndRegistration) == 56,
              "TfLiteContext.GetNodeAndRegistration");
static_assert(offsetof(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels) == 64,
              "TfLiteContext.ReplaceNodeSubsetsWithDelegateKernels");
static_assert(offsetof(TfLiteContext, recommended_num_threads) == 72,
              "TfLiteContext.recommended_num_threads");
static_assert(offsetof(TfLiteRegistration, builtin_code) == 40, "TfLiteRegistration.builtin_code");
static_assert(offsetof(TfLiteRegistration, version) == 56, "TfLiteRegistration.version");
static_assert(offsetof(TfLiteRegistration, registration_external) == 64,
              "TfLiteRegistration.registration_external");
static_assert(offsetof(TfLiteRegistration, async_kernel) == 72, "TfLiteRegistration.async_kernel");
static_assert(offsetof(TfLiteRegistration, inplace_operator) == 80,
              "TfLiteRegistration.inplace_operator");
static_assert(sizeof(TfLiteDelegate) == 56, "TfLiteDelegate size");
static_assert(offsetof(TfLiteDelegate, flags) == 40, "TfLiteDelegate.flags");
static_assert(offsetof(TfLiteDelegate, opaque_delegate_builder) == 48,
              "TfLiteDelegate.opaque_delegate_builder");
static_assert(sizeof(TfLiteDelegateParams) == 32, "TfLiteDelegateParams");
static_assert(offsetof(TfLiteFullyConnectedParams, keep_num_dims) == 8, "TfLiteFullyConnectedParams");
static_assert(sizeof(TfLiteSoftmaxParams) == 4, "TfLiteSoftmaxParams");
static_assert(offsetof(TfLiteConcatenationParams, activation) == 4, "TfLiteConcatenationParams.activation");
static_assert(offsetof(TfLiteBatchMatMulParams, adj_y) == 1, "TfLiteBatchMatMulParams.adj_y");
static_assert(offsetof(TfLiteReshapeParams, num_dimensions) == 32, "TfLiteReshapeParams.num_dimensions");
static_assert(offsetof(TfLiteSqueezeParams, num_squeeze_dims) == 32, "TfLiteSqueezeParams.num_squeeze_dims");
static_assert(offsetof(TfLiteResizeParams, half_pixel_centers) == 1, "TfLiteResize*Params.half_pixel_centers");
static_assert(offsetof(TfLiteTransposeConvParams, stride_height) == 8, "TfLiteTransposeConvParams.stride_height");
static_assert(offsetof(TfLiteTransposeConvParams, activation) == 12, "TfLiteTransposeConvParams.activation");
static_assert(offsetof(TfLiteStridedSliceParams, offset) == 20, "TfLiteStridedSliceParams.offset");
static_assert(sizeof(TfLiteGatherParams) == 8, "TfLiteGatherParams");
