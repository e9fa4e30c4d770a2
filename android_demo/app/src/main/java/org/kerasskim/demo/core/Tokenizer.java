package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The port of {@code keras_skim.datasets.tokenizer.Tokenizer}: the vocabulary saved as
 * {@code tokenizer.json} next to a model, and the same text-to-ids rules.
 *
 * <p>Rules (keep in step with the Python module docstring): only ASCII {@code A-Z} are
 * lower-cased, never with {@link String#toLowerCase}, whose result depends on the locale and on
 * Unicode tables that differ from Python's (dotted capital I, Kelvin sign, ...). Tokens are, left
 * to right, a run of {@code [a-z0-9]} joined by single inner apostrophes ({@code rock'n'roll}),
 * or one punctuation character among {@code . , ; : ! ? ( ) " ' -}; every other character
 * separates tokens. Id 0 is {@code <pad>}, id 1 is {@code <unk>}.
 */
public final class Tokenizer {
    public static final String FORMAT = "keras_skim.tokenizer";
    public static final int VERSION = 1;
    /** The Python regex, as saved in {@code tokenizer.json}; a file with other rules is refused. */
    public static final String TOKEN_PATTERN = "[a-z0-9]+(?:'[a-z0-9]+)*|[.,;:!?()\\\"'\\-]";
    public static final String PAD = "<pad>";
    public static final String UNK = "<unk>";
    public static final int PAD_ID = 0;
    public static final int UNK_ID = 1;

    private static final String PUNCTUATION = ".,;:!?()\"'-";

    private final List<String> vocabulary;
    private final Map<String, Integer> ids;
    private final Integer maxLength;

    /**
     * @param vocabulary tokens, index = id; starts with {@code <pad>}, {@code <unk>}, no duplicates
     * @param maxLength the saved sequence length, or null
     */
    public Tokenizer(List<String> vocabulary, Integer maxLength) throws JsonException {
        if (vocabulary.size() < 2 || !PAD.equals(vocabulary.get(0)) || !UNK.equals(vocabulary.get(1))) {
            throw new JsonException("vocabulary must start with \"" + PAD + "\", \"" + UNK + "\"");
        }
        Map<String, Integer> index = new HashMap<>(vocabulary.size() * 2);
        for (int i = 0; i < vocabulary.size(); i++) {
            if (index.put(vocabulary.get(i), i) != null) {
                throw new JsonException("vocabulary has duplicate tokens");
            }
        }
        this.vocabulary = Collections.unmodifiableList(new ArrayList<>(vocabulary));
        this.ids = index;
        this.maxLength = maxLength;
    }

    /** Reads the text of a {@code tokenizer.json}, with the checks of Python's {@code from_config}. */
    public static Tokenizer fromJson(String json) throws JsonException {
        Map<String, Object> config = Json.object(Json.parse(json), "the tokenizer file");
        if (!FORMAT.equals(config.get("format"))) {
            throw new JsonException("not a " + FORMAT + " file (format=" + Json.write(config.get("format")) + ")");
        }
        Object version = config.get("version");
        if (!(version instanceof Long) || (Long) version != VERSION) {
            throw new JsonException("unsupported tokenizer version " + Json.write(version) + ", expected " + VERSION);
        }
        if (!Boolean.TRUE.equals(config.get("lowercase")) || !TOKEN_PATTERN.equals(config.get("token_pattern"))) {
            throw new JsonException("tokenizer rules differ from this version's (lowercase/token_pattern)");
        }
        List<String> vocabulary = Json.strings(config.get("vocabulary"), "\"vocabulary\"");
        return new Tokenizer(vocabulary, Json.optInteger(config, "max_length"));
    }

    /** Splits one text into tokens, e.g. {@code "Don't stop, it's great!"} gives
     * {@code [don't, stop, ",", it's, great, !]}. */
    public static List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        int n = text.length();
        int i = 0;
        StringBuilder word = new StringBuilder();
        while (i < n) {
            char c = lower(text.charAt(i));
            if (isWordChar(c)) {
                word.setLength(0);
                i = readRun(text, i, word);
                // an apostrophe joins two runs only when a word character follows it
                while (i + 1 < n && text.charAt(i) == '\'' && isWordChar(lower(text.charAt(i + 1)))) {
                    word.append('\'');
                    i = readRun(text, i + 1, word);
                }
                tokens.add(word.toString());
            } else {
                if (PUNCTUATION.indexOf(c) >= 0) {
                    tokens.add(String.valueOf(c));
                }
                i++;
            }
        }
        return tokens;
    }

    /** Ids of tokens; tokens outside the vocabulary get {@link #UNK_ID}. */
    public int[] encode(List<String> tokens) {
        int[] out = new int[tokens.size()];
        for (int i = 0; i < out.length; i++) {
            Integer id = ids.get(tokens.get(i));
            out[i] = id == null ? UNK_ID : id;
        }
        return out;
    }

    /** Python's {@code encode_one}: ids of one text without padding, cut at {@code maxLength} when not null. */
    public int[] encodeText(String text, Integer maxLength) {
        List<String> tokens = tokenize(text);
        if (maxLength != null && tokens.size() > maxLength) {
            tokens = tokens.subList(0, Math.max(maxLength, 0));
        }
        return encode(tokens);
    }

    public int vocabularySize() {
        return vocabulary.size();
    }

    /** The sequence length saved with the tokenizer, or null. */
    public Integer maxLength() {
        return maxLength;
    }

    /** The token of an id; ids outside the vocabulary read as {@code <unk>}. */
    public String token(int id) {
        return id >= 0 && id < vocabulary.size() ? vocabulary.get(id) : UNK;
    }

    private static int readRun(String text, int i, StringBuilder word) {
        while (i < text.length()) {
            char c = lower(text.charAt(i));
            if (!isWordChar(c)) {
                break;
            }
            word.append(c);
            i++;
        }
        return i;
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    private static boolean isWordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }
}
