"""fusedelegate: an operator-fusion delegate for TensorFlow Lite.

    import fusedelegate
    interpreter = Interpreter(model_path=..., experimental_delegates=[fusedelegate.load()])

works with tf.lite, tflite_runtime and ai_edge_litert interpreters.
"""
from ._loader import (
    Delegate,
    DelegateOptionError,
    LibraryError,
    OPTION_KEYS,
    default_model_path,
    library_path,
    load,
)

__version__ = "0.1.0"

__all__ = [
    "Delegate",
    "DelegateOptionError",
    "LibraryError",
    "OPTION_KEYS",
    "__version__",
    "default_model_path",
    "library_path",
    "load",
]
