package org.kerasskim.demo;

import android.app.Activity;
import android.content.ClipData;
import android.content.ClipboardManager;
import android.content.Context;
import android.graphics.Insets;
import android.graphics.Typeface;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.text.Editable;
import android.text.SpannableStringBuilder;
import android.text.Spanned;
import android.text.TextWatcher;
import android.text.style.ForegroundColorSpan;
import android.text.style.StrikethroughSpan;
import android.text.style.StyleSpan;
import android.view.View;
import android.view.WindowInsets;
import android.widget.AdapterView;
import android.widget.ArrayAdapter;
import android.widget.Button;
import android.widget.EditText;
import android.widget.SeekBar;
import android.widget.Spinner;
import android.widget.TextView;
import android.widget.Toast;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import org.kerasskim.demo.core.BenchReport;
import org.kerasskim.demo.core.BenchRunner;
import org.kerasskim.demo.core.BenchTexts;
import org.kerasskim.demo.core.CatalogEntry;
import org.kerasskim.demo.core.DemoModel;
import org.kerasskim.demo.core.Fmt;
import org.kerasskim.demo.core.Highlight;
import org.kerasskim.demo.core.MachineInfo;
import org.kerasskim.demo.core.ModelCatalog;
import org.kerasskim.demo.core.ModelException;
import org.kerasskim.demo.core.ModelRepository;
import org.kerasskim.demo.core.NativeLibrary;
import org.kerasskim.demo.core.Outcome;
import org.kerasskim.demo.core.Prediction;
import org.kerasskim.demo.core.Problem;
import org.kerasskim.demo.core.SampleReview;

/**
 * The demo's one screen. All model work (loading, runs, the benchmark) happens on one worker
 * thread; the UI thread only reads widgets and shows results. Every failure arrives as a
 * {@link Problem} and is shown in red.
 */
public final class MainActivity extends Activity {
    /** The slider runs from 0.00 (read every word) to 1.50 (skim every word) in steps of 0.01. */
    private static final int THRESHOLD_STEPS = 150;
    private static final int BENCH_REPEATS = 5;
    private static final int BENCH_WARMUP = 1;

    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private final Handler ui = new Handler(Looper.getMainLooper());
    /** The newest classification asked for; older ones are dropped, so the slider never queues runs. */
    private final AtomicReference<Request> pending = new AtomicReference<>();

    // worker thread only
    private ModelRepository repository;
    private final Map<String, Outcome<DemoModel>> models = new HashMap<>();
    private Problem nativeProblem;
    private boolean nativeLoaded;

    // UI thread only
    private ModelCatalog catalog;
    private CatalogEntry selected;
    private boolean thresholdSetForModel;
    /** Whether the selected model has a threshold (false for the LSTM); known once it is loaded. */
    private boolean selectedSkims = true;
    private boolean benchmarking;
    private TextView problemView;
    private Spinner modelPicker;
    private Spinner samplePicker;
    private EditText textBox;
    private TextView thresholdLabel;
    private SeekBar thresholdBar;
    private TextView predictionView;
    private TextView timingView;
    private TextView highlightedView;
    private TextView legendView;
    private Button benchmarkButton;
    private Button copyButton;
    private TextView benchView;

    /** One classification: which model, which text, which threshold. */
    private static final class Request {
        final CatalogEntry entry;
        final String text;
        final float threshold;

        Request(CatalogEntry entry, String text, float threshold) {
            this.entry = entry;
            this.text = text;
            this.threshold = threshold;
        }
    }

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        setContentView(R.layout.activity_main);
        padForSystemBars(findViewById(R.id.root));
        problemView = findViewById(R.id.problem);
        modelPicker = findViewById(R.id.model_picker);
        samplePicker = findViewById(R.id.sample_picker);
        textBox = findViewById(R.id.text);
        thresholdLabel = findViewById(R.id.threshold_label);
        thresholdBar = findViewById(R.id.threshold);
        predictionView = findViewById(R.id.prediction);
        timingView = findViewById(R.id.timing);
        highlightedView = findViewById(R.id.highlighted);
        legendView = findViewById(R.id.legend);
        benchmarkButton = findViewById(R.id.benchmark);
        copyButton = findViewById(R.id.copy_report);
        benchView = findViewById(R.id.bench_report);

        thresholdBar.setMax(THRESHOLD_STEPS);
        thresholdBar.setProgress(THRESHOLD_STEPS / 3);
        showThresholdLabel();
        setControlsEnabled(false);

        repository = new ModelRepository(new AndroidAssets(getAssets()));
        worker.execute(new Runnable() {
            @Override
            public void run() {
                final Outcome<ModelCatalog> loadedCatalog = repository.catalog();
                final Outcome<List<SampleReview>> samples = repository.sampleReviews();
                ui.post(new Runnable() {
                    @Override
                    public void run() {
                        showCatalog(loadedCatalog, samples);
                    }
                });
            }
        });
    }

    /**
     * From targetSdk 35 on, Android 15+ draws every app edge to edge: the window reaches under
     * the status bar, the navigation bar, display cutouts and the keyboard (adjustResize no longer
     * shrinks it). The screen's scrolling root therefore takes those insets as extra padding, so
     * that no control sits under a bar and the text box scrolls above the keyboard. (The theme has
     * no action bar, so nothing else handles the top.) On older versions, where the window
     * decoration fits the system windows itself, the insets that arrive here are zero.
     */
    @SuppressWarnings("deprecation") // getSystemWindowInset*: the API 26-29 form of getInsets
    private static void padForSystemBars(final View root) {
        final int left = root.getPaddingLeft();
        final int top = root.getPaddingTop();
        final int right = root.getPaddingRight();
        final int bottom = root.getPaddingBottom();
        root.setOnApplyWindowInsetsListener(new View.OnApplyWindowInsetsListener() {
            @Override
            public WindowInsets onApplyWindowInsets(View view, WindowInsets insets) {
                if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.R) {
                    Insets bars = insets.getInsets(WindowInsets.Type.systemBars()
                            | WindowInsets.Type.displayCutout() | WindowInsets.Type.ime());
                    view.setPadding(left + bars.left, top + bars.top, right + bars.right, bottom + bars.bottom);
                    return WindowInsets.CONSUMED;
                }
                view.setPadding(left + insets.getSystemWindowInsetLeft(), top + insets.getSystemWindowInsetTop(),
                        right + insets.getSystemWindowInsetRight(), bottom + insets.getSystemWindowInsetBottom());
                return insets.consumeSystemWindowInsets();
            }
        });
        root.requestApplyInsets();
    }

    @Override
    protected void onDestroy() {
        pending.set(null);
        worker.execute(new Runnable() {
            @Override
            public void run() {
                for (Outcome<DemoModel> model : models.values()) {
                    if (model.isOk()) {
                        model.value().close();
                    }
                }
                models.clear();
            }
        });
        worker.shutdown();
        super.onDestroy();
    }

    // ---- UI thread ----

    private void showCatalog(Outcome<ModelCatalog> loaded, Outcome<List<SampleReview>> samples) {
        if (!loaded.isOk()) {
            showProblem(loaded.problem());
            predictionView.setText("");
            return;
        }
        catalog = loaded.value();
        ArrayAdapter<CatalogEntry> modelAdapter =
                new ArrayAdapter<>(this, android.R.layout.simple_spinner_item, catalog.models);
        modelAdapter.setDropDownViewResource(android.R.layout.simple_spinner_dropdown_item);
        modelPicker.setAdapter(modelAdapter);
        modelPicker.setSelection(catalog.models.indexOf(catalog.entry(catalog.defaultModelId)));
        modelPicker.setOnItemSelectedListener(new AdapterView.OnItemSelectedListener() {
            @Override
            public void onItemSelected(AdapterView<?> parent, View view, int position, long id) {
                selected = catalog.models.get(position);
                thresholdSetForModel = false;
                requestRun();
            }

            @Override
            public void onNothingSelected(AdapterView<?> parent) {
            }
        });
        if (samples.isOk()) {
            final List<SampleReview> reviews = samples.value();
            ArrayAdapter<SampleReview> sampleAdapter =
                    new ArrayAdapter<>(this, android.R.layout.simple_spinner_item, reviews);
            sampleAdapter.setDropDownViewResource(android.R.layout.simple_spinner_dropdown_item);
            samplePicker.setAdapter(sampleAdapter);
            samplePicker.setOnItemSelectedListener(new AdapterView.OnItemSelectedListener() {
                @Override
                public void onItemSelected(AdapterView<?> parent, View view, int position, long id) {
                    textBox.setText(reviews.get(position).text);  // the text watcher re-runs
                }

                @Override
                public void onNothingSelected(AdapterView<?> parent) {
                }
            });
        } else {
            showProblem(samples.problem());
        }
        textBox.addTextChangedListener(new TextWatcher() {
            @Override
            public void beforeTextChanged(CharSequence s, int start, int count, int after) {
            }

            @Override
            public void onTextChanged(CharSequence s, int start, int before, int count) {
            }

            @Override
            public void afterTextChanged(Editable s) {
                requestRun();
            }
        });
        thresholdBar.setOnSeekBarChangeListener(new SeekBar.OnSeekBarChangeListener() {
            @Override
            public void onProgressChanged(SeekBar bar, int progress, boolean fromUser) {
                showThresholdLabel();
                if (fromUser) {
                    requestRun();  // re-runs at once while the slider moves
                }
            }

            @Override
            public void onStartTrackingTouch(SeekBar bar) {
            }

            @Override
            public void onStopTrackingTouch(SeekBar bar) {
            }
        });
        benchmarkButton.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                startBenchmark();
            }
        });
        copyButton.setOnClickListener(new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                ClipboardManager clipboard = (ClipboardManager) getSystemService(Context.CLIPBOARD_SERVICE);
                clipboard.setPrimaryClip(ClipData.newPlainText("keras-skim bench", benchView.getText()));
                Toast.makeText(MainActivity.this, R.string.copied, Toast.LENGTH_SHORT).show();
            }
        });
        setControlsEnabled(true);
    }

    private float threshold() {
        return thresholdBar.getProgress() / 100f;
    }

    private void showThresholdLabel() {
        thresholdLabel.setText(getString(R.string.threshold_label, Fmt.fixed(threshold(), 2)));
    }

    private void setControlsEnabled(boolean enabled) {
        modelPicker.setEnabled(enabled);
        samplePicker.setEnabled(enabled);
        textBox.setEnabled(enabled);
        thresholdBar.setEnabled(enabled && selectedSkims);
        benchmarkButton.setEnabled(enabled && catalog != null && catalog.baseline() != null);
    }

    private void showProblem(Problem problem) {
        problemView.setText(problem.message);
        problemView.setVisibility(View.VISIBLE);
    }

    private void clearProblem() {
        problemView.setVisibility(View.GONE);
    }

    private void requestRun() {
        if (selected == null || benchmarking) {
            return;
        }
        pending.set(new Request(selected, textBox.getText().toString(), threshold()));
        worker.execute(new Runnable() {
            @Override
            public void run() {
                classifyNewest();
            }
        });
    }

    private void showPrediction(Request request, DemoModel model, Outcome<Prediction> outcome) {
        if (request.entry != selected) {
            return;  // the user has picked another model meanwhile
        }
        if (!thresholdSetForModel) {
            // a skim model starts at its exported threshold; the LSTM ignores the slider
            thresholdSetForModel = true;
            selectedSkims = model.metadata.skims();
            thresholdBar.setEnabled(selectedSkims && !benchmarking);
            legendView.setText(model.metadata.jumps() ? R.string.legend_jump : R.string.legend);
            if (model.metadata.jumps()) {
                thresholdLabel.setText(getString(R.string.threshold_unused_jump, request.entry.title));
            } else if (!selectedSkims) {
                thresholdLabel.setText(getString(R.string.threshold_unused, request.entry.title));
            } else {
                showThresholdLabel();
                Double exported = model.metadata.defaultThreshold;
                if (exported != null && Math.round(exported.floatValue() * 100) != thresholdBar.getProgress()) {
                    thresholdBar.setProgress(Math.round(exported.floatValue() * 100));
                    showThresholdLabel();
                    requestRun();  // this result was for the old threshold
                    return;
                }
            }
        }
        if (!outcome.isOk()) {
            showProblem(outcome.problem());
            return;
        }
        clearProblem();
        Prediction p = outcome.value();
        predictionView.setText(p.summary());
        timingView.setText(getString(R.string.invoke_time, Fmt.fixed(p.nanos / 1e3, 1), Math.max(p.ids.length, 1)));
        highlightedView.setText(spans(Highlight.of(p)));
    }

    /** Read words bold, skimmed (skipped) ones grey, jumped ones lighter and struck through, punctuation plain. */
    private CharSequence spans(Highlight highlight) {
        SpannableStringBuilder text = new SpannableStringBuilder(highlight.text);
        int read = getColor(R.color.read);
        int skimmed = getColor(R.color.skimmed);
        int jumped = getColor(R.color.jumped);
        for (Highlight.Segment s : highlight.segments) {
            switch (s.state) {
                case READ:
                    text.setSpan(new StyleSpan(Typeface.BOLD), s.start, s.end, Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
                    text.setSpan(new ForegroundColorSpan(read), s.start, s.end, Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
                    break;
                case SKIMMED:
                    text.setSpan(new ForegroundColorSpan(skimmed), s.start, s.end, Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
                    break;
                case NOT_A_WORD:
                    break;
                default:
                    text.setSpan(new ForegroundColorSpan(jumped), s.start, s.end, Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
                    text.setSpan(new StrikethroughSpan(), s.start, s.end, Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
            }
        }
        return text;
    }

    private void startBenchmark() {
        final CatalogEntry entry = selected;
        final CatalogEntry baselineEntry = catalog.baseline();
        if (entry == null || baselineEntry == null || benchmarking) {
            return;
        }
        benchmarking = true;
        setControlsEnabled(false);
        copyButton.setEnabled(false);
        benchView.setText(getString(R.string.bench_running, 0, BENCH_REPEATS));
        final double threshold = threshold();
        final MachineInfo machine = machineInfo(entry, threshold);
        worker.execute(new Runnable() {
            @Override
            public void run() {
                final Outcome<BenchReport> report = benchmark(entry, baselineEntry, threshold, machine);
                ui.post(new Runnable() {
                    @Override
                    public void run() {
                        benchmarking = false;
                        setControlsEnabled(true);
                        thresholdBar.setEnabled(selectedSkims);
                        if (report.isOk()) {
                            benchView.setText(report.value().markdown());
                            copyButton.setEnabled(true);
                        } else {
                            benchView.setText("");
                            showProblem(report.problem());
                        }
                    }
                });
            }
        });
    }

    private MachineInfo machineInfo(CatalogEntry entry, double threshold) {
        String processor = Build.MANUFACTURER + " " + Build.MODEL + ", " + Build.SUPPORTED_ABIS[0];
        if (Build.VERSION.SDK_INT >= 31) {
            processor += ", " + Build.SOC_MANUFACTURER + " " + Build.SOC_MODEL;
        }
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("litert", BuildConfig.LITERT_VERSION);
        versions.put("keras-skim demo app", BuildConfig.VERSION_NAME + (BuildConfig.DEBUG ? " (debug build)" : ""));
        return new MachineInfo("Android " + Build.VERSION.RELEASE + " (API " + Build.VERSION.SDK_INT + ")",
                processor, Runtime.getRuntime().availableProcessors(),
                "ART " + System.getProperty("java.vm.version"), versions,
                "keras-skim demo app: Benchmark, " + entry.title + ", threshold " + Fmt.fixed(threshold, 2));
    }

    // ---- worker thread ----

    private void classifyNewest() {
        final Request request = pending.getAndSet(null);
        if (request == null) {
            return;  // a newer run already took it
        }
        final Outcome<DemoModel> model = model(request.entry);
        if (!model.isOk()) {
            ui.post(new Runnable() {
                @Override
                public void run() {
                    if (request.entry == selected) {
                        showProblem(model.problem());
                        predictionView.setText("");
                        highlightedView.setText("");
                        timingView.setText("");
                    }
                }
            });
            return;
        }
        final Outcome<Prediction> prediction = model.value().classify(request.text, request.threshold);
        ui.post(new Runnable() {
            @Override
            public void run() {
                showPrediction(request, model.value(), prediction);
            }
        });
    }

    /** The loaded model of an entry (loaded once; a failure is kept and shown again). */
    private Outcome<DemoModel> model(CatalogEntry entry) {
        if (!nativeLoaded && nativeProblem == null) {
            try {
                NativeLibrary.loadBundled();
                nativeLoaded = true;
            } catch (LinkageError err) {
                nativeProblem = new Problem(Problem.Kind.NATIVE_LIBRARY,
                        "libkeras_skim_jni.so cannot be loaded (" + err.getMessage() + ")");
            }
        }
        if (nativeProblem != null) {
            return Outcome.failed(nativeProblem);
        }
        Outcome<DemoModel> model = models.get(entry.id);
        if (model == null) {
            model = repository.open(entry, 1);  // one thread: what the benchmark measures
            models.put(entry.id, model);
        }
        return model;
    }

    private Outcome<BenchReport> benchmark(CatalogEntry entry, CatalogEntry baselineEntry, double threshold,
                                           MachineInfo machine) {
        Outcome<DemoModel> model = model(entry);
        if (!model.isOk()) {
            return model.cast();
        }
        Outcome<DemoModel> baseline = model(baselineEntry);
        if (!baseline.isOk()) {
            return baseline.cast();
        }
        Outcome<BenchTexts> texts = repository.benchTexts(catalog);
        if (!texts.isOk()) {
            return texts.cast();
        }
        try {
            return Outcome.ok(BenchRunner.run(model.value(), baseline.value(), texts.value(),
                    new double[] {threshold}, BENCH_REPEATS, BENCH_WARMUP, machine, new BenchRunner.Progress() {
                        @Override
                        public void update(final int done, final int total) {
                            ui.post(new Runnable() {
                                @Override
                                public void run() {
                                    benchView.setText(getString(R.string.bench_running, done, total));
                                }
                            });
                        }
                    }));
        } catch (ModelException | RuntimeException err) {
            return Outcome.failed(Problem.Kind.RUN, "the benchmark failed: " + err.getMessage());
        }
    }
}
