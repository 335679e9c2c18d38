package org.fusedelegate.demo;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.fusedelegate.FuseDelegate;
import org.fusedelegate.demo.core.BenchSettings;
import org.fusedelegate.demo.core.Config;
import org.fusedelegate.demo.core.ElementType;
import org.fusedelegate.demo.core.InferenceSession;
import org.fusedelegate.demo.core.TensorBuffers;
import org.tensorflow.lite.Interpreter;
import org.tensorflow.lite.Tensor;

/** One configuration: a TFLite interpreter (with or without XNNPACK and fusedelegate) and fixed inputs. */
final class TfliteSession implements InferenceSession {
  private final Interpreter interpreter;
  private final FuseDelegate delegate;  // null when the configuration has none
  private final ByteBuffer[] inputs;
  private final Map<Integer, Object> outputs = new HashMap<>();
  private final ElementType[] outputTypes;

  /** Opens sessions on one model (a direct, native-order buffer that must outlive them). */
  static final class Factory implements InferenceSession.Factory {
    private final ByteBuffer model;
    private final BenchSettings settings;
    private final String planFile;

    /** @param planFile where the fusedelegate-alone configuration writes its plan */
    Factory(ByteBuffer model, BenchSettings settings, String planFile) {
      this.model = model;
      this.settings = settings;
      this.planFile = planFile;
    }

    @Override
    public InferenceSession open(Config config) {
      Interpreter.Options options = new Interpreter.Options()
          .setNumThreads(settings.numThreads)
          .setUseXNNPACK(config.usesXnnpack);
      FuseDelegate delegate = null;
      Interpreter interpreter = null;
      try {
        if (config.usesFuseDelegate) {
          delegate = new FuseDelegate(settings.optionsFor(config, planFile));
          options.addDelegate(delegate);
        }
        interpreter = new Interpreter(model, options);
        return new TfliteSession(interpreter, delegate, settings);
      } catch (RuntimeException e) {
        if (interpreter != null) interpreter.close();
        if (delegate != null) delegate.close();
        throw e;
      }
    }
  }

  private TfliteSession(Interpreter interpreter, FuseDelegate delegate, BenchSettings settings) {
    this.interpreter = interpreter;
    this.delegate = delegate;
    inputs = new ByteBuffer[interpreter.getInputTensorCount()];
    for (int i = 0; i < inputs.length; i++) {
      Tensor t = interpreter.getInputTensor(i);
      inputs[i] = TensorBuffers.allocate(t.numBytes());
      // Seeded by input index: every configuration gets the same inputs.
      TensorBuffers.fill(inputs[i], ElementType.fromName(t.dataType().name()), i, settings.inputLow,
          settings.inputHigh);
    }
    outputTypes = new ElementType[interpreter.getOutputTensorCount()];
    for (int i = 0; i < outputTypes.length; i++) {
      Tensor t = interpreter.getOutputTensor(i);
      outputTypes[i] = ElementType.fromName(t.dataType().name());
      outputs.put(i, TensorBuffers.allocate(t.numBytes()));
    }
  }

  @Override
  public double run() {
    for (ByteBuffer b : inputs) b.rewind();
    for (Object b : outputs.values()) ((ByteBuffer) b).rewind();
    long start = System.nanoTime();
    interpreter.runForMultipleInputsOutputs(inputs, outputs);
    long wall = System.nanoTime() - start;
    // The interpreter's own figure leaves out copying inputs and outputs.
    Long invoke = interpreter.getLastNativeInferenceDurationNanoseconds();
    return (invoke != null ? invoke : wall) / 1e6;
  }

  @Override
  public float[][] outputs() {
    float[][] values = new float[outputTypes.length][];
    for (int i = 0; i < values.length; i++)
      values[i] = TensorBuffers.toFloats((ByteBuffer) outputs.get(i), outputTypes[i]);
    return values;
  }

  @Override
  public void close() {
    interpreter.close();  // before the delegate it uses
    if (delegate != null) delegate.close();
  }
}
