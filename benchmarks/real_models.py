"""Issue 18's real-format models, beyond the float32 set: random weights (seed 0),
converted by the TFLite converter with builtin ops only. Keras builds them offline.

    .venv/bin/python benchmarks/real_models.py                  # writes benchmarks/models/<name>.tflite
    .venv/bin/python benchmarks/real_models.py --models sparse_net --rebuild

Models:
  sparse_net       conv net and FC head whose weights are 85% zeros in blocks of 4 input
                   channels, converted with Optimize.EXPERIMENTAL_SPARSITY: convolutions
                   read their weights through DENSIFY ops, the FCs keep theirs sparse.
  blazeface_like   128x128 detector: PReLU (per-channel alpha), depthwise 5x5 + pointwise
                   blocks with residuals (max-pooled, channel-padded shortcuts), an 8x8 ->
                   16x16 bilinear upsampling + concat pyramid, class and box heads.
  segmentation_net 256x256 U-Net: strided conv encoder, Conv2DTranspose and bilinear
                   upsampling decoder, skip concatenations, 21 class logits per pixel.
  dynamic_batch    batch None: static convs and FCs joined by reshapes whose shape is
                   computed from the input (SHAPE, STRIDED_SLICE, PACK, RESHAPE).

The six models of keras_models.py with dynamic-range int8 weights are written by
`model_set.py --weights dynamic_int8 --build_only` (or real_set.py, which builds both).
"""
import argparse
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
layers = tf.keras.layers

SPARSE_ZEROS = 0.85     # fraction of weight blocks set to zero in sparse_net
SPARSE_BLOCK = 4        # consecutive input channels per block (TFLite's 1x4 blocks)
# Random biases, as trained layers have: the converter drops an all-zero bias.
BIAS = tf.keras.initializers.RandomUniform(-0.1, 0.1)
KERNEL = "he_uniform"  # keeps activations' scale through ReLU layers (Glorot's halves it per layer)


def conv_bn(x, filters, k=3, stride=1, activation="relu"):
    x = layers.Conv2D(filters, k, stride, padding="same", use_bias=False, kernel_initializer=KERNEL)(x)
    return layers.Activation(activation)(layers.BatchNormalization()(x))


def sparse_net(size=112):
    """A plain conv net and a two-layer FC head; its weights are sparsified after building."""
    x = inp = tf.keras.Input((size, size, 3), batch_size=1)
    x = conv_bn(x, 32, 3, 2)
    for filters, stride in ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)):
        x = conv_bn(x, filters, 3 if stride == 2 else 1, stride)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(512, activation="relu", kernel_initializer=KERNEL, bias_initializer=BIAS)(x)
    return tf.keras.Model(inp, layers.Dense(1000, bias_initializer=BIAS)(x), name="sparse_net")


def sparsify(model, zeros=SPARSE_ZEROS, block=SPARSE_BLOCK, seed=0):
    """Zeroes `zeros` of the blocks of `block` input channels in every conv/FC kernel
    whose input depth is a multiple of `block` (Keras kernels: input channels on axis -2);
    the kept weights grow by 1/sqrt(1 - zeros), so activations keep their scale."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if not isinstance(layer, (layers.Conv2D, layers.Dense)):
            continue
        kernel = layer.kernel.numpy()
        if kernel.shape[-2] % block:
            continue
        keep_shape = kernel.shape[:-2] + (kernel.shape[-2] // block, kernel.shape[-1])
        keep = np.repeat(rng.random(keep_shape) >= zeros, block, axis=-2)
        layer.kernel.assign(kernel * keep / np.sqrt(1.0 - zeros))
    return model


def prelu(x):
    """PReLU with one alpha per channel (shared over height and width)."""
    alpha = tf.keras.initializers.RandomUniform(0.05, 0.3)
    return layers.PReLU(alpha_initializer=alpha, shared_axes=[1, 2])(x)


class ChannelPad(layers.Layer):
    """Zero channels appended (BlazeFace's shortcut into a wider block): a PAD op."""

    def __init__(self, extra, **kwargs):
        super().__init__(**kwargs)
        self.extra = extra

    def call(self, x):
        return tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, self.extra]])


def blaze_block(x, filters, stride=1):
    y = layers.DepthwiseConv2D(5, stride, padding="same", bias_initializer=BIAS)(x)
    y = layers.Conv2D(filters, 1, bias_initializer=BIAS)(y)
    shortcut = layers.MaxPooling2D(2)(x) if stride == 2 else x
    if filters > x.shape[-1]:
        shortcut = ChannelPad(filters - x.shape[-1])(shortcut)
    return prelu(layers.Add()([y, shortcut]))


def blaze_head(x, anchors, depth):
    """[1, H*W*anchors, depth] from a 1x1 conv."""
    return layers.Reshape((-1, depth))(layers.Conv2D(anchors * depth, 1, bias_initializer=BIAS)(x))


def blazeface_like(size=128):
    """Backbone to 16x16 and 8x8 features; the 8x8 one upsampled (bilinear) and
    concatenated into the 16x16 one; class (1) and box (16) heads on both scales."""
    x = inp = tf.keras.Input((size, size, 3), batch_size=1)
    x = prelu(layers.Conv2D(24, 5, 2, padding="same", bias_initializer=BIAS)(x))
    for filters, stride in ((24, 1), (28, 1), (32, 2), (36, 1), (42, 1), (48, 2),
                            (56, 1), (64, 1), (72, 1), (80, 1), (88, 1)):
        x = blaze_block(x, filters, stride)
    f16 = x
    for stride in (2, 1, 1, 1):
        x = blaze_block(x, 96, stride)
    f8 = x
    up = prelu(layers.Conv2D(88, 1, bias_initializer=BIAS)(f8))
    up = layers.UpSampling2D(2, interpolation="bilinear")(up)
    f16 = prelu(layers.Conv2D(96, 1, bias_initializer=BIAS)(layers.Concatenate()([f16, up])))
    scores = layers.Concatenate(axis=1)([blaze_head(f16, 2, 1), blaze_head(f8, 6, 1)])
    boxes = layers.Concatenate(axis=1)([blaze_head(f16, 2, 16), blaze_head(f8, 6, 16)])
    return tf.keras.Model(inp, [scores, boxes], name="blazeface_like")


def segmentation_net(size=256, widths=(16, 32, 64, 128, 256), classes=21):
    """Encoder: conv+BN+ReLU, stride 2 between levels. Decoder: the two deepest levels
    up by Conv2DTranspose, the others by bilinear UpSampling2D; each concatenated with
    the encoder's skip and refined by a 3x3 conv."""
    x = inp = tf.keras.Input((size, size, 3), batch_size=1)
    skips = []
    for level, width in enumerate(widths):
        x = conv_bn(x, width, 3, 1 if level == 0 else 2)
        x = conv_bn(x, width, 3)
        skips.append(x)
    for level in range(len(widths) - 2, -1, -1):
        width = widths[level]
        if level >= len(widths) - 3:
            x = layers.Conv2DTranspose(width, 3, 2, padding="same", activation="relu", bias_initializer=BIAS)(x)
        else:
            x = layers.UpSampling2D(2, interpolation="bilinear")(x)
        x = conv_bn(layers.Concatenate()([x, skips[level]]), width, 3)
    return tf.keras.Model(inp, layers.Conv2D(classes, 1, bias_initializer=BIAS)(x), name="segmentation_net")


class BatchReshape(layers.Layer):
    """tf.reshape to [batch, *shape], the batch read at run time: SHAPE,
    STRIDED_SLICE, PACK and a RESHAPE with that computed shape."""

    def __init__(self, shape, **kwargs):
        super().__init__(**kwargs)
        self.target = tuple(shape)

    def call(self, x):
        return tf.reshape(x, tf.stack([tf.shape(x)[0], *self.target]))


def dynamic_batch(size=64, channels=64, hidden=128, classes=10):
    """Input [None, 64, 64, 3]: convs to 16x16, tokens [batch, 256, 64] through a
    residual GELU FFN and LayerNormalization, back to 16x16, a conv, a classifier."""
    x = inp = tf.keras.Input((size, size, 3))
    x = conv_bn(x, channels // 2, 3, 2)
    x = conv_bn(x, channels, 3, 2)
    side = size // 4
    t = BatchReshape((side * side, channels))(x)
    h = layers.Dense(hidden, activation="gelu", bias_initializer=BIAS)(t)
    t = layers.LayerNormalization()(t + layers.Dense(channels, bias_initializer=BIAS)(h))
    x = conv_bn(BatchReshape((side, side, channels))(t), channels, 3)
    x = layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, layers.Dense(classes, bias_initializer=BIAS)(x), name="dynamic_batch")


BUILDERS = {
    "sparse_net": lambda: sparsify(sparse_net()),
    "blazeface_like": blazeface_like,
    "segmentation_net": segmentation_net,
    "dynamic_batch": dynamic_batch,
}
MODELS = tuple(BUILDERS)
# Ops each converted model must contain (model_set.build_models checks): the features it is for.
EXPECTED_OPS = {
    "sparse_net": ("DENSIFY",),
    "blazeface_like": ("PRELU", "RESIZE_BILINEAR", "CONCATENATION", "PAD", "MAX_POOL_2D"),
    "segmentation_net": ("TRANSPOSE_CONV", "RESIZE_BILINEAR", "CONCATENATION"),
    "dynamic_batch": ("SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"),
}
DYNAMIC_SHAPES = ("dynamic_batch",)  # models whose tensors may have dynamic shapes


def convert(name, model):
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if name == "sparse_net":
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    return converter.convert()


def build(name, path, weights="float32"):
    """Builds model `name` with seed 0 and writes it to `path` (its weights are the model's own)."""
    if weights != "float32":
        raise ValueError(f"{name}: the real-format models set their own weights, not '{weights}'")
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(0)
    content = convert(name, BUILDERS[name]())
    with open(path, "wb") as f:
        f.write(content)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS), help="comma list, subset of: " + ", ".join(MODELS))
    p.add_argument("--out", default=os.path.join(HERE, "models"), help="model folder (default benchmarks/models)")
    p.add_argument("--rebuild", action="store_true", help="rebuild models even if their file exists")
    args = p.parse_args(argv)
    import model_set
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    model_set.build_models(names, args.out, args.rebuild, builder="real_models")


if __name__ == "__main__":
    main()
