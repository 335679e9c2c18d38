package org.fusedelegate.demo;

import android.app.Activity;
import android.content.Intent;
import android.database.Cursor;
import android.net.Uri;
import android.os.Bundle;
import android.provider.OpenableColumns;
import android.widget.Button;
import android.widget.EditText;
import android.widget.TextView;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.fusedelegate.FuseDelegate;
import org.fusedelegate.demo.core.BenchResult;
import org.fusedelegate.demo.core.BenchSettings;
import org.fusedelegate.demo.core.Benchmark;
import org.fusedelegate.demo.core.Config;
import org.fusedelegate.demo.core.PlanSummary;
import org.fusedelegate.demo.core.ReportFormatter;
import org.fusedelegate.demo.core.TensorBuffers;

/** The one screen: pick a model, run the four configurations, show the comparison. */
public final class MainActivity extends Activity {
  private static final String BUNDLED_MODEL = "default_model.tflite";
  private static final int PICK_MODEL = 1;

  private Thread running;  // the benchmark in progress, or null
  private Uri pickedModel;  // null: the bundled model

  private TextView modelView;
  private TextView outputView;
  private EditText runsField;
  private EditText threadsField;
  private EditText optionsField;
  private Button runButton;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    setContentView(R.layout.activity_main);
    modelView = findViewById(R.id.model);
    outputView = findViewById(R.id.output);
    runsField = findViewById(R.id.runs);
    threadsField = findViewById(R.id.threads);
    optionsField = findViewById(R.id.options);
    runButton = findViewById(R.id.run);
    TextView isasView = findViewById(R.id.isas);
    try {
      isasView.setText("fusedelegate ISAs on this device: " + String.join(", ", FuseDelegate.availableIsas()));
    } catch (LinkageError e) {
      isasView.setText("libfusedelegate.so failed to load: " + e.getMessage());
      runButton.setEnabled(false);
    }

    findViewById(R.id.pick_model).setOnClickListener(v -> {
      Intent pick = new Intent(Intent.ACTION_OPEN_DOCUMENT).addCategory(Intent.CATEGORY_OPENABLE).setType("*/*");
      startActivityForResult(pick, PICK_MODEL);
    });
    findViewById(R.id.use_bundled).setOnClickListener(v -> {
      pickedModel = null;
      modelView.setText(R.string.bundled_model);
    });
    runButton.setOnClickListener(v -> {
      if (running != null) {
        running.interrupt();  // the benchmark checks for it between runs
      } else {
        start();
      }
    });
  }

  @Override
  protected void onActivityResult(int requestCode, int resultCode, Intent data) {
    super.onActivityResult(requestCode, resultCode, data);
    if (requestCode == PICK_MODEL && resultCode == RESULT_OK && data != null && data.getData() != null) {
      pickedModel = data.getData();
      modelView.setText(displayName(pickedModel));
    }
  }

  @Override
  protected void onDestroy() {
    if (running != null) running.interrupt();
    super.onDestroy();
  }

  private void start() {
    final BenchSettings settings;
    try {
      settings = BenchSettings.fromText(runsField.getText().toString(), threadsField.getText().toString(),
          optionsField.getText().toString());
    } catch (IllegalArgumentException e) {
      outputView.setText(e.getMessage());
      return;
    }
    final Uri model = pickedModel;
    final String modelName = model == null ? BUNDLED_MODEL : displayName(model);
    final String defaultPlanFile = new File(getCacheDir(), "plan.json").getPath();
    runButton.setText(R.string.cancel);
    outputView.setText("starting…");
    running = new Thread(() -> {
      String text;
      try {
        ByteBuffer bytes = readModel(model);
        new File(defaultPlanFile).delete();  // no stale plan from an earlier run
        File plan = new File(settings.planFile(defaultPlanFile));
        BenchResult result = new Benchmark().run(new TfliteSession.Factory(bytes, settings, defaultPlanFile),
            Arrays.asList(Config.values()), settings, (stage, done, total) -> show(stage + " " + done + "/" + total));
        text = ReportFormatter.format(modelName, result, readPlan(plan));
      } catch (InterruptedException e) {
        text = "cancelled";
      } catch (Exception | LinkageError e) {
        text = "failed: " + e.getMessage() + "\n(" + e.getClass().getName() + ")";
      }
      final String shown = text;
      runOnUiThread(() -> {
        outputView.setText(shown);
        runButton.setText(R.string.run);
        running = null;
      });
    }, "benchmark");
    running.start();
  }

  private void show(final String progress) {
    runOnUiThread(() -> {
      if (running != null) outputView.setText(progress);
    });
  }

  /** The whole model in a direct, native-order buffer, as the Interpreter wants it. */
  private ByteBuffer readModel(Uri model) throws IOException {
    try (InputStream in = model == null ? getAssets().open(BUNDLED_MODEL)
        : getContentResolver().openInputStream(model)) {
      if (in == null) throw new IOException("cannot open " + model);
      byte[] bytes = readAll(in);
      ByteBuffer buffer = TensorBuffers.allocate(bytes.length);
      buffer.put(bytes).rewind();
      return buffer;
    }
  }

  /** The plan summary the delegate wrote, or null. */
  private static PlanSummary readPlan(File plan) {
    if (!plan.isFile()) return null;
    try (InputStream in = new FileInputStream(plan)) {
      return PlanSummary.parse(new String(readAll(in), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return null;
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[1 << 16];
    for (int n; (n = in.read(chunk)) != -1; ) out.write(chunk, 0, n);
    return out.toByteArray();
  }

  private String displayName(Uri uri) {
    try (Cursor c = getContentResolver().query(uri, new String[] {OpenableColumns.DISPLAY_NAME}, null, null, null)) {
      if (c != null && c.moveToFirst() && !c.isNull(0)) return c.getString(0);
    } catch (RuntimeException ignored) {
      // fall back to the URI
    }
    return uri.toString();
  }
}
