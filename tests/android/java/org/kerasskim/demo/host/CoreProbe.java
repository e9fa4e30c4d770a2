package org.kerasskim.demo.host;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.kerasskim.demo.core.BenchReport;
import org.kerasskim.demo.core.BenchRunner;
import org.kerasskim.demo.core.BenchStatistics;
import org.kerasskim.demo.core.BenchSubject;
import org.kerasskim.demo.core.BenchTexts;
import org.kerasskim.demo.core.CatalogEntry;
import org.kerasskim.demo.core.DemoModel;
import org.kerasskim.demo.core.DirectoryAssets;
import org.kerasskim.demo.core.Encoded;
import org.kerasskim.demo.core.Fmt;
import org.kerasskim.demo.core.GoldenCheck;
import org.kerasskim.demo.core.GoldenFile;
import org.kerasskim.demo.core.Highlight;
import org.kerasskim.demo.core.Json;
import org.kerasskim.demo.core.JsonException;
import org.kerasskim.demo.core.MachineInfo;
import org.kerasskim.demo.core.ModelCatalog;
import org.kerasskim.demo.core.ModelException;
import org.kerasskim.demo.core.ModelFiles;
import org.kerasskim.demo.core.ModelMetadata;
import org.kerasskim.demo.core.ModelRepository;
import org.kerasskim.demo.core.NativeLibrary;
import org.kerasskim.demo.core.Outcome;
import org.kerasskim.demo.core.Prediction;
import org.kerasskim.demo.core.RunResult;
import org.kerasskim.demo.core.SampleReview;
import org.kerasskim.demo.core.TokenPadding;
import org.kerasskim.demo.core.TokenState;
import org.kerasskim.demo.core.Tokenizer;

/**
 * The host tests' window into the app's core (tests/android/): reads one JSON request per line
 * on stdin, {"op": ..., ...}, and answers one JSON line on stdout. Everything it answers is
 * computed by the app's own classes; this file only translates. Test-only, never in the app.
 */
public final class CoreProbe {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            Object answer;
            try {
                Map<String, Object> request = Json.object(Json.parse(line), "the request");
                answer = handle(Json.string(request, "op"), request);
            } catch (Throwable err) {
                StringWriter trace = new StringWriter();
                err.printStackTrace(new PrintWriter(trace));
                Map<String, Object> failure = new LinkedHashMap<>();
                failure.put("exception", err.toString());
                failure.put("trace", trace.toString());
                answer = failure;
            }
            out.println(Json.write(answer));
        }
    }

    private static Object handle(String op, Map<String, Object> r) throws Exception {
        switch (op) {
            case "constants": return constants();
            case "tokenize": return tokenize(r);
            case "encode": return encode(r);
            case "metadata": return metadata(r);
            case "tokenizer": return tokenizerFile(r);
            case "repository": return repository(r);
            case "golden_tokens": return goldenTokens(r);
            case "golden_replay": return goldenReplay(r);
            case "native_golden": return nativeGolden(r);
            case "native_bench": return nativeBench(r);
            case "highlight": return highlight(r);
            case "prediction": return prediction(r);
            case "format": return format(r);
            case "percentile": return percentile(r);
            case "probabilities": return probabilities(r);
            case "bench": return bench(r);
            case "json": return Json.parse(Json.string(r, "text"));
            case "token_padding": return tokenPadding(r);
            default: throw new IllegalArgumentException("unknown op " + op);
        }
    }

    /**
     * TokenPadding over texts of the given lengths in turn: per text the input length it runs at
     * and the padded ids; and the metadata's padsTokens when a metadata text is given.
     */
    private static Object tokenPadding(Map<String, Object> r) throws JsonException {
        TokenPadding padding = new TokenPadding();
        List<Object> runs = new ArrayList<>();
        int next = 1;
        for (Object length : Json.array(r.get("lengths"), "lengths")) {
            int[] ids = new int[((Number) length).intValue()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = next++;
            }
            int[] padded = padding.pad(ids);
            List<Object> values = new ArrayList<>();
            for (int id : padded) {
                values.add(id);
            }
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("length", padding.length());
            run.put("ids", values);
            runs.add(run);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runs", runs);
        Object metadata = r.get("metadata");
        if (metadata != null) {
            out.put("pads_tokens", ModelMetadata.fromJson(Json.write(metadata)).padsTokens());
        }
        return out;
    }

    private static Map<String, Object> constants() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("asset_root", ModelRepository.ASSET_ROOT);
        out.put("catalog_path", ModelRepository.CATALOG_PATH);
        out.put("sample_reviews_path", ModelRepository.SAMPLE_REVIEWS_PATH);
        out.put("token_pattern", Tokenizer.TOKEN_PATTERN);
        out.put("tokenizer_format", Tokenizer.FORMAT);
        out.put("metadata_format", ModelMetadata.FORMAT);
        out.put("token_ids_input", ModelMetadata.TOKEN_IDS_INPUT);
        out.put("text_inputs_only", ModelMetadata.TEXT_INPUTS_ONLY);
        out.put("catalog_format", ModelCatalog.FORMAT);
        out.put("bench_texts_format", BenchTexts.FORMAT);
        out.put("golden_format", GoldenFile.FORMAT);
        out.put("sample_reviews_format", SampleReview.FORMAT);
        return out;
    }

    /** Tokens of texts, and their ids when a tokenizer.json is given. */
    private static Object tokenize(Map<String, Object> r) throws Exception {
        Tokenizer tokenizer = r.get("tokenizer") == null ? null
                : Tokenizer.fromJson(read(Json.string(r, "tokenizer")));
        Integer maxLength = Json.optInteger(r, "max_length");
        List<Object> out = new ArrayList<>();
        for (String text : Json.strings(r.get("texts"), "texts")) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("tokens", Tokenizer.tokenize(text));
            if (tokenizer != null) {
                one.put("ids", tokenizer.encodeText(text, maxLength));
            }
            out.add(one);
        }
        return out;
    }

    /** {@code Encoded.of} with a tokenizer.json and a metadata.json (SkimRunner.encode). */
    private static Object encode(Map<String, Object> r) throws Exception {
        Tokenizer tokenizer = Tokenizer.fromJson(read(Json.string(r, "tokenizer")));
        ModelMetadata metadata = ModelMetadata.fromJson(read(Json.string(r, "metadata")));
        List<Object> out = new ArrayList<>();
        for (String text : Json.strings(r.get("texts"), "texts")) {
            Encoded e = Encoded.of(text, tokenizer, metadata.maxLength);
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("tokens", e.tokens);
            one.put("ids", e.ids);
            out.add(one);
        }
        return out;
    }

    private static Object metadata(Map<String, Object> r) throws Exception {
        ModelMetadata m;
        try {
            m = ModelMetadata.fromJson(r.get("text") != null ? Json.string(r, "text") : read(Json.string(r, "path")));
        } catch (JsonException err) {
            return error(err.getMessage());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("model_kind", m.modelKind);
        out.put("units", (long) m.units);
        out.put("small_units", m.smallUnits == null ? null : (long) m.smallUnits);
        out.put("embedding_dim", (long) m.embeddingDim);
        out.put("vocabulary_size", (long) m.vocabularySize);
        out.put("num_classes", (long) m.numClasses);
        out.put("output_activation", m.outputActivation);
        out.put("max_length", m.maxLength == null ? null : (long) m.maxLength);
        out.put("default_threshold", m.defaultThreshold);
        out.put("backend", m.backend);
        out.put("custom_ops", m.customOps);
        out.put("skims", m.skims());
        out.put("baseline_flops_per_token", m.baselineFlopsPerToken);
        out.put("read_flops_per_token", m.readFlopsPerToken);
        out.put("skim_flops_per_token", m.skimFlopsPerToken);
        List<Object> states = new ArrayList<>();
        for (int code = 0; code < 3; code++) {
            states.add(m.state(code).name());
        }
        out.put("states_of_codes_0_1_2", states);
        out.put("state_of_code_3", m.state(3).name());
        out.put("jumps", m.jumps());
        out.put("agent_units", m.agentUnits == null ? null : (long) m.agentUnits);
        List<Object> names = new ArrayList<>();
        for (int index = 0; index < Math.max(m.numClasses, 2); index++) {
            names.add(m.className(index));
        }
        out.put("class_names", names);
        out.put("takes_threshold", m.takesThreshold);
        List<Object> jumpFlopR = new ArrayList<>();
        for (Object counts : Json.array(r.get("jump_counts") == null ? new ArrayList<Object>() : r.get("jump_counts"),
                "jump_counts")) {
            int[] c = Json.ints(counts, "each of jump_counts");
            jumpFlopR.add(m.jumpFlopR(c[0], c[1], c[2]));
        }
        out.put("jump_flop_r", jumpFlopR);
        List<Object> flopR = new ArrayList<>();
        for (Object rate : Json.array(r.get("skim_rates") == null ? new ArrayList<Object>() : r.get("skim_rates"), "skim_rates")) {
            flopR.add(m.flopR(((Number) rate).doubleValue()));
        }
        out.put("flop_r", flopR);
        return out;
    }

    private static Object tokenizerFile(Map<String, Object> r) throws Exception {
        try {
            Tokenizer t = Tokenizer.fromJson(r.get("text") != null ? Json.string(r, "text") : read(Json.string(r, "path")));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("vocabulary_size", (long) t.vocabularySize());
            out.put("max_length", t.maxLength() == null ? null : (long) t.maxLength());
            out.put("token_2", t.token(2));
            return out;
        } catch (JsonException err) {
            return error(err.getMessage());
        }
    }

    /** Everything the app reads from an assets folder, each failure as a Problem. */
    private static Object repository(Map<String, Object> r) throws Exception {
        ModelRepository repo = new ModelRepository(new DirectoryAssets(new File(Json.string(r, "assets"))));
        Map<String, Object> out = new LinkedHashMap<>();
        Outcome<List<SampleReview>> samples = repo.sampleReviews();
        out.put("sample_reviews", samples.isOk() ? (Object) (long) samples.value().size() : problem(samples));
        Outcome<ModelCatalog> catalog = repo.catalog();
        if (!catalog.isOk()) {
            out.put("catalog", problem(catalog));
            return out;
        }
        ModelCatalog c = catalog.value();
        Map<String, Object> cat = new LinkedHashMap<>();
        cat.put("default_model", c.defaultModelId);
        cat.put("baseline", c.baselineId);
        cat.put("bench_texts", c.benchTextsPath);
        out.put("catalog", cat);
        Outcome<BenchTexts> texts = repo.benchTexts(c);
        if (texts.isOk()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("description", texts.value().description);
            t.put("texts", (long) texts.value().texts.size());
            t.put("labels", texts.value().labels);
            out.put("bench_texts", t);
        } else {
            out.put("bench_texts", problem(texts));
        }
        List<Object> models = new ArrayList<>();
        for (CatalogEntry entry : c.models) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", entry.id);
            m.put("title", entry.title);
            m.put("model_kind", entry.modelKind);
            m.put("backend", entry.backend);
            m.put("model", entry.modelPath);
            m.put("tokenizer", entry.tokenizerPath);
            m.put("metadata", entry.metadataPath);
            m.put("labels", entry.labels);
            Outcome<ModelFiles> files = repo.files(entry);
            if (files.isOk()) {
                m.put("files", "ok");
                m.put("model_bytes", (long) files.value().model.capacity());
                m.put("model_buffer_direct", files.value().model.isDirect());
                if (Boolean.TRUE.equals(r.get("open"))) {
                    Outcome<DemoModel> opened = DemoModel.open(files.value(), 1);
                    m.put("open", opened.isOk() ? "ok" : problem(opened));
                    if (opened.isOk()) {
                        opened.value().close();
                    }
                }
            } else {
                m.put("files", problem(files));
            }
            models.add(m);
        }
        out.put("models", models);
        return out;
    }

    /** The golden files' tokens and ids against the app's encoding of each bundled model. */
    private static Object goldenTokens(Map<String, Object> r) throws Exception {
        ModelRepository repo = new ModelRepository(new DirectoryAssets(new File(Json.string(r, "assets"))));
        ModelCatalog catalog = repo.catalog().value();
        Map<String, Object> out = new LinkedHashMap<>();
        for (CatalogEntry entry : catalog.models) {
            ModelFiles files = repo.files(entry).value();
            GoldenFile golden = GoldenFile.fromJson(read(new File(Json.string(r, "golden"), entry.id + ".json").getPath()));
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("cases", (long) golden.cases.size());
            one.put("problems", GoldenCheck.checkTokens(new FilesSubject(files, null), golden));
            out.put(entry.id, one);
        }
        return out;
    }

    /** GoldenCheck.check against a subject that replays the golden runs, optionally altered. */
    private static Object goldenReplay(Map<String, Object> r) throws Exception {
        ModelRepository repo = new ModelRepository(new DirectoryAssets(new File(Json.string(r, "assets"))));
        CatalogEntry entry = repo.catalog().value().entry(Json.string(r, "model"));
        ModelFiles files = repo.files(entry).value();
        GoldenFile golden = GoldenFile.fromJson(read(Json.string(r, "golden")));
        Map<String, Object> alter = r.get("alter") == null ? new LinkedHashMap<String, Object>()
                : Json.object(r.get("alter"), "alter");
        FilesSubject subject = new FilesSubject(files, new Replay(golden, alter));
        return GoldenCheck.check(subject, golden, ((Number) r.get("tolerance")).doubleValue());
    }

    /** End to end with the real JNI shim: every bundled model against its golden file. */
    private static Object nativeGolden(Map<String, Object> r) throws Exception {
        NativeLibrary.loadFromPath(Json.string(r, "library"));
        ModelRepository repo = new ModelRepository(new DirectoryAssets(new File(Json.string(r, "assets"))));
        Map<String, Object> out = new LinkedHashMap<>();
        for (CatalogEntry entry : repo.catalog().value().models) {
            Outcome<DemoModel> model = repo.open(entry, 1);
            if (!model.isOk()) {
                out.put(entry.id, problem(model));
                continue;
            }
            GoldenFile golden = GoldenFile.fromJson(read(new File(Json.string(r, "golden"), entry.id + ".json").getPath()));
            out.put(entry.id, GoldenCheck.check(model.value(), golden, ((Number) r.get("tolerance")).doubleValue()));
            model.value().close();
        }
        return out;
    }

    /** The Benchmark button with the real JNI shim: the catalog's default model against its baseline. */
    private static Object nativeBench(Map<String, Object> r) throws Exception {
        NativeLibrary.loadFromPath(Json.string(r, "library"));
        ModelRepository repo = new ModelRepository(new DirectoryAssets(new File(Json.string(r, "assets"))));
        ModelCatalog catalog = repo.catalog().value();
        Outcome<DemoModel> model = repo.open(catalog.entry(Json.string(r, "model")), 1);
        Outcome<DemoModel> baseline = repo.open(catalog.baseline(), 1);
        if (!model.isOk() || !baseline.isOk()) {
            return problem(model.isOk() ? baseline : model);
        }
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("litert", "wheel");
        MachineInfo machine = new MachineInfo(System.getProperty("os.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), "Java " + System.getProperty("java.version"),
                versions, "CoreProbe native_bench");
        BenchReport report = BenchRunner.run(model.value(), baseline.value(), repo.benchTexts(catalog).value(),
                Json.numbers(r.get("thresholds"), "thresholds"), Json.integer(r, "repeats"), 1, machine, null);
        model.value().close();
        baseline.value().close();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("report", report.toJson());
        out.put("markdown", report.markdown());
        return out;
    }

    private static Object highlight(Map<String, Object> r) throws Exception {
        List<String> tokens = Json.strings(r.get("tokens"), "tokens");
        List<TokenState> states = new ArrayList<>();
        ModelMetadata meta = ModelMetadata.fromJson(Json.string(r, "metadata"));
        for (int code : Json.ints(r.get("codes"), "codes")) {
            states.add(meta.state(code));
        }
        Highlight h = Highlight.of(tokens, states);
        List<Object> segments = new ArrayList<>();
        for (Highlight.Segment s : h.segments) {
            List<Object> seg = new ArrayList<>();
            seg.add((long) s.start);
            seg.add((long) s.end);
            seg.add(s.state.name());
            segments.add(seg);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("text", h.text);
        out.put("plain", h.plain());
        out.put("segments", segments);
        return out;
    }

    /** A Prediction of a catalog entry of {@code model_kind} from tokens, mask codes and logits. */
    private static Object prediction(Map<String, Object> r) throws Exception {
        ModelMetadata meta = ModelMetadata.fromJson(Json.string(r, "metadata"));
        List<String> tokens = Json.strings(r.get("tokens"), "tokens");
        List<TokenState> states = new ArrayList<>();
        for (int code : Json.ints(r.get("codes"), "codes")) {
            states.add(meta.state(code));
        }
        double[] raw = Json.numbers(r.get("logits"), "logits");
        float[] logits = new float[raw.length];
        for (int i = 0; i < raw.length; i++) {
            logits[i] = (float) raw[i];
        }
        CatalogEntry entry = new CatalogEntry("id", "title", meta.modelKind, meta.backend, "m", "t", "d",
                Json.strings(r.get("labels"), "labels"));
        Prediction p = new Prediction(tokens, new int[tokens.size()], states, logits, meta.outputActivation, entry,
                0f, 1000L);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("summary", p.summary());
        out.put("plain", Highlight.of(p).plain());
        out.put("jumps", p.jumps);
        return out;
    }

    private static Object format(Map<String, Object> r) throws Exception {
        List<Object> out = new ArrayList<>();
        int digits = Json.integer(r, "digits");
        for (double v : Json.numbers(r.get("values"), "values")) {
            out.add(digits < 0 ? Fmt.percent0(v) : Fmt.fixed(v, digits));
        }
        return out;
    }

    private static Object percentile(Map<String, Object> r) throws Exception {
        double[] values = Json.numbers(r.get("values"), "values");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("median", BenchStatistics.median(values));
        out.put("p90", BenchStatistics.percentile(values, 90));
        out.put("q", BenchStatistics.percentile(values, ((Number) r.get("q")).doubleValue()));
        return out;
    }

    private static Object probabilities(Map<String, Object> r) throws Exception {
        double[] raw = Json.numbers(r.get("logits"), "logits");
        float[] logits = new float[raw.length];
        for (int i = 0; i < raw.length; i++) {
            logits[i] = (float) raw[i];
        }
        double[] p = Prediction.probabilitiesFromLogits(logits, Json.optString(r, "activation"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("probabilities", p);
        out.put("argmax", (long) Prediction.argmax(p));
        return out;
    }

    /** BenchRunner on two scripted subjects whose run times come from the request. */
    private static Object bench(Map<String, Object> r) throws Exception {
        Clock clock = new Clock(Json.numbers(r.get("jitter"), "jitter"));
        Scripted model = new Scripted("model.tflite", ModelMetadata.fromJson(Json.string(r, "model_metadata")),
                Json.object(r.get("model"), "model"), clock);
        Scripted baseline = r.get("baseline") == null ? null : new Scripted("baseline.tflite",
                ModelMetadata.fromJson(Json.string(r, "baseline_metadata")), Json.object(r.get("baseline"), "baseline"), clock);
        List<Integer> labels = null;
        if (r.get("labels") != null) {
            labels = new ArrayList<>();
            for (int label : Json.ints(r.get("labels"), "labels")) {
                labels.add(label);
            }
        }
        BenchTexts texts = new BenchTexts(Json.string(r, "description"), Json.strings(r.get("texts"), "texts"), labels);
        Map<String, String> versions = new LinkedHashMap<>();
        for (Map.Entry<String, Object> v : Json.object(r.get("versions"), "versions").entrySet()) {
            versions.put(v.getKey(), (String) v.getValue());
        }
        MachineInfo machine = new MachineInfo(Json.string(r, "platform"), Json.string(r, "processor"),
                Json.integer(r, "cpu_count"), Json.string(r, "runtime"), versions, Json.string(r, "command"),
                Json.optNumber(r, "peak_rss_mb"));
        BenchReport report = BenchRunner.run(model, baseline, texts, Json.numbers(r.get("thresholds"), "thresholds"),
                Json.integer(r, "repeats"), Json.integer(r, "warmup"), machine, null);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("report", report.toJson());
        out.put("markdown", report.markdown());
        out.put("calls", clock.calls);
        return out;
    }

    // ---- helpers ----

    private static String read(String path) throws Exception {
        return new String(java.nio.file.Files.readAllBytes(new File(path).toPath()), StandardCharsets.UTF_8);
    }

    private static Map<String, Object> error(String message) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("error", message);
        return out;
    }

    private static Map<String, Object> problem(Outcome<?> outcome) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("problem", outcome.problem().kind.name());
        out.put("message", outcome.problem().message);
        return out;
    }

    /** A bundled model's real tokenizer and metadata, with runs from a {@link Replay} (no native code). */
    private static final class FilesSubject implements BenchSubject {
        private final ModelFiles files;
        private final Replay replay;

        FilesSubject(ModelFiles files, Replay replay) {
            this.files = files;
            this.replay = replay;
        }

        @Override
        public String path() {
            return files.entry.modelPath;
        }

        @Override
        public ModelMetadata metadata() {
            return files.metadata;
        }

        @Override
        public Encoded encode(String text) {
            return Encoded.of(text, files.tokenizer, files.metadata.maxLength);
        }

        @Override
        public RunResult run(int[] tokenIds, float threshold) throws ModelException {
            if (replay == null) {
                throw new ModelException("no runs in a tokens-only check");
            }
            return replay.run(tokenIds, threshold);
        }
    }

    /** Answers each (ids, threshold) with the golden run, optionally altered. */
    private static final class Replay {
        private final GoldenFile golden;
        private final Map<String, Object> alter;

        Replay(GoldenFile golden, Map<String, Object> alter) {
            this.golden = golden;
            this.alter = alter;
        }

        RunResult run(int[] ids, float threshold) throws ModelException {
            for (GoldenFile.Case c : golden.cases) {
                if (!java.util.Arrays.equals(c.tokenIds, ids)) {
                    continue;
                }
                for (GoldenFile.Run run : c.runs) {
                    if ((float) run.threshold != threshold) {
                        continue;
                    }
                    float[] logits = new float[run.logits.length];
                    for (int i = 0; i < logits.length; i++) {
                        logits[i] = (float) run.logits[i];
                    }
                    int[] mask = run.readMask.clone();
                    int count = run.readCount;
                    if (c.name.equals(alter.get("case"))) {
                        if (alter.get("logit_delta") != null) {
                            logits[0] += ((Number) alter.get("logit_delta")).floatValue();
                        }
                        if (Boolean.TRUE.equals(alter.get("flip_mask"))) {
                            mask[0] = 1 - mask[0];
                        }
                        if (alter.get("count_delta") != null) {
                            count += ((Number) alter.get("count_delta")).intValue();
                        }
                    }
                    return new RunResult(logits, mask, count, 1000L);
                }
            }
            throw new ModelException("no golden run for these ids at threshold " + threshold);
        }
    }

    /** Run times: a text's base time times the jitter factor of the global call count. */
    private static final class Clock {
        final double[] jitter;
        final List<Object> calls = new ArrayList<>();

        Clock(double[] jitter) {
            this.jitter = jitter;
        }

        long next(String who, int text, double baseNanos) {
            double factor = jitter[calls.size() % jitter.length];
            List<Object> call = new ArrayList<>();
            call.add(who);
            call.add((long) text);
            calls.add(call);
            return Math.round(baseNanos * factor);
        }
    }

    /** A model whose texts, ids, run times, read counts and logits come from the request. */
    private static final class Scripted implements BenchSubject {
        private final String path;
        private final ModelMetadata metadata;
        private final List<String> texts;
        private final List<Object> ids;
        private final double[] nanos;
        private final int[] readCounts;
        private final List<Object> logits;
        /** Per text, the read mask the run returns; null: none (an empty mask). */
        private final List<Object> masks;
        private final Clock clock;

        Scripted(String path, ModelMetadata metadata, Map<String, Object> script, Clock clock) throws JsonException {
            this.path = path;
            this.metadata = metadata;
            this.texts = Json.strings(script.get("texts"), "texts");
            this.ids = Json.array(script.get("ids"), "ids");
            this.nanos = Json.numbers(script.get("nanos"), "nanos");
            this.readCounts = Json.ints(script.get("read_counts"), "read_counts");
            this.logits = Json.array(script.get("logits"), "logits");
            this.masks = script.get("masks") == null ? null : Json.array(script.get("masks"), "masks");
            this.clock = clock;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public ModelMetadata metadata() {
            return metadata;
        }

        @Override
        public Encoded encode(String text) {
            int k = texts.indexOf(text);
            try {
                int[] tokenIds = Json.ints(ids.get(k), "ids");
                List<String> tokens = new ArrayList<>();
                for (int id : tokenIds) {
                    tokens.add("t" + id);
                }
                return new Encoded(tokens, tokenIds);
            } catch (JsonException err) {
                throw new IllegalArgumentException(err.getMessage());
            }
        }

        @Override
        public RunResult run(int[] tokenIds, float threshold) throws ModelException {
            for (int k = 0; k < ids.size(); k++) {
                try {
                    if (java.util.Arrays.equals(Json.ints(ids.get(k), "ids"), tokenIds)) {
                        double[] raw = Json.numbers(logits.get(k), "logits");
                        float[] out = new float[raw.length];
                        for (int i = 0; i < raw.length; i++) {
                            out[i] = (float) raw[i];
                        }
                        int[] mask = masks == null ? new int[0] : Json.ints(masks.get(k), "masks");
                        return new RunResult(out, mask, readCounts[k], clock.next(path, k, nanos[k]));
                    }
                } catch (JsonException err) {
                    throw new ModelException(err.getMessage());
                }
            }
            throw new ModelException("unscripted ids");
        }
    }
}
