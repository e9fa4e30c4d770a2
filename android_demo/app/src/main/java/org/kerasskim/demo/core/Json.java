package org.kerasskim.demo.core;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small JSON reader and writer, because neither org.json (Android only) nor any other JSON
 * library is in the desktop JDK that runs the host tests.
 *
 * <p>Values: objects are {@code Map<String, Object>} (insertion order kept), arrays
 * {@code List<Object>}, strings {@code String}, numbers {@code Long} when written without a
 * fraction or exponent, else {@code Double}, {@code Boolean}, and {@code null}. Python's
 * {@code json} module writes {@code NaN}, {@code Infinity} and {@code -Infinity}, so they are
 * read too.
 */
public final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value that fills the whole text. */
    public static Object parse(String text) throws JsonException {
        Json reader = new Json(text);
        reader.skipSpace();
        Object value = reader.value();
        reader.skipSpace();
        if (reader.pos != text.length()) {
            throw reader.error("unexpected text after the JSON value");
        }
        return value;
    }

    /** The JSON text of a value; non-ASCII characters are written as \\u escapes. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        writeTo(out, value);
        return out.toString();
    }

    // ---- typed access, each failure one line naming the key ----

    /** {@code value} as an object, or an error naming {@code what}. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value, String what) throws JsonException {
        if (!(value instanceof Map)) {
            throw new JsonException(what + " must be a JSON object");
        }
        return (Map<String, Object>) value;
    }

    /** {@code value} as an array, or an error naming {@code what}. */
    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value, String what) throws JsonException {
        if (!(value instanceof List)) {
            throw new JsonException(what + " must be a JSON array");
        }
        return (List<Object>) value;
    }

    /** A required string member. */
    public static String string(Map<String, Object> object, String key) throws JsonException {
        Object value = object.get(key);
        if (!(value instanceof String)) {
            throw new JsonException("\"" + key + "\" must be a string");
        }
        return (String) value;
    }

    /** An optional string member: null when absent or null. */
    public static String optString(Map<String, Object> object, String key) throws JsonException {
        Object value = object.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String)) {
            throw new JsonException("\"" + key + "\" must be a string or null");
        }
        return (String) value;
    }

    /** A required integer member. */
    public static int integer(Map<String, Object> object, String key) throws JsonException {
        Integer value = optInteger(object, key);
        if (value == null) {
            throw new JsonException("\"" + key + "\" must be an integer");
        }
        return value;
    }

    /** An optional integer member: null when absent or null. */
    public static Integer optInteger(Map<String, Object> object, String key) throws JsonException {
        Object value = object.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof Long) || (Long) value > Integer.MAX_VALUE || (Long) value < Integer.MIN_VALUE) {
            throw new JsonException("\"" + key + "\" must be an integer or null, got " + write(value));
        }
        return ((Long) value).intValue();
    }

    /** An optional number member: null when absent or null. */
    public static Double optNumber(Map<String, Object> object, String key) throws JsonException {
        Object value = object.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof Number)) {
            throw new JsonException("\"" + key + "\" must be a number or null, got " + write(value));
        }
        return ((Number) value).doubleValue();
    }

    /** A list of strings. */
    public static List<String> strings(Object value, String what) throws JsonException {
        List<Object> items = array(value, what);
        List<String> out = new ArrayList<>(items.size());
        for (Object item : items) {
            if (!(item instanceof String)) {
                throw new JsonException(what + " must hold strings only");
            }
            out.add((String) item);
        }
        return out;
    }

    /** An array of integers. */
    public static int[] ints(Object value, String what) throws JsonException {
        List<Object> items = array(value, what);
        int[] out = new int[items.size()];
        for (int i = 0; i < out.length; i++) {
            Object item = items.get(i);
            if (!(item instanceof Long)) {
                throw new JsonException(what + " must hold integers only");
            }
            out[i] = ((Long) item).intValue();
        }
        return out;
    }

    /** An array of numbers. */
    public static double[] numbers(Object value, String what) throws JsonException {
        List<Object> items = array(value, what);
        double[] out = new double[items.size()];
        for (int i = 0; i < out.length; i++) {
            Object item = items.get(i);
            if (!(item instanceof Number)) {
                throw new JsonException(what + " must hold numbers only");
            }
            out[i] = ((Number) item).doubleValue();
        }
        return out;
    }

    // ---- reader ----

    private JsonException error(String what) {
        return new JsonException("bad JSON at character " + pos + ": " + what);
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private Object value() throws JsonException {
        if (pos >= text.length()) {
            throw error("unexpected end of text");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return objectValue();
            case '[':
                return arrayValue();
            case '"':
                return stringValue();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            case 'N':
                return literal("NaN", Double.NaN);
            case 'I':
                return literal("Infinity", Double.POSITIVE_INFINITY);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return numberValue();
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Object literal(String word, Object value) throws JsonException {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
        return value;
    }

    private Map<String, Object> objectValue() throws JsonException {
        Map<String, Object> out = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '}') {
            pos++;
            return out;
        }
        while (true) {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != '"') {
                throw error("expected a member name in quotes");
            }
            String key = stringValue();
            skipSpace();
            expect(':');
            skipSpace();
            out.put(key, value());
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == ',') {
                pos++;
                continue;
            }
            expect('}');
            return out;
        }
    }

    private List<Object> arrayValue() throws JsonException {
        List<Object> out = new ArrayList<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ']') {
            pos++;
            return out;
        }
        while (true) {
            skipSpace();
            out.add(value());
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == ',') {
                pos++;
                continue;
            }
            expect(']');
            return out;
        }
    }

    private void expect(char c) throws JsonException {
        if (pos >= text.length() || text.charAt(pos) != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private String stringValue() throws JsonException {
        pos++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException err) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                    break;
                default:
                    throw error("bad escape \\" + e);
            }
        }
    }

    private Object numberValue() throws JsonException {
        int start = pos;
        if (text.charAt(pos) == '-') {
            pos++;
            if (text.startsWith("Infinity", pos)) {
                pos += "Infinity".length();
                return Double.NEGATIVE_INFINITY;
            }
        }
        boolean integral = true;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c >= '0' && c <= '9') {
                pos++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                pos++;
            } else {
                break;
            }
        }
        String number = text.substring(start, pos);
        try {
            if (integral) {
                return Long.parseLong(number);
            }
            return Double.parseDouble(number);
        } catch (NumberFormatException err) {
            pos = start;
            throw error("bad number " + number);
        }
    }

    // ---- writer ----

    private static void writeTo(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            quote(out, (String) value);
        } else if (value instanceof Boolean || value instanceof Long || value instanceof Integer) {
            out.append(value);
        } else if (value instanceof Float) {
            number(out, (Float) value, Float.toString((Float) value));
        } else if (value instanceof Number) {
            double d = ((Number) value).doubleValue();
            number(out, d, Double.toString(d));
        } else if (value instanceof Map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = ((Map<?, ?>) value).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> entry = it.next();
                quote(out, String.valueOf(entry.getKey()));
                out.append(": ");
                writeTo(out, entry.getValue());
                if (it.hasNext()) {
                    out.append(", ");
                }
            }
            out.append('}');
        } else if (value instanceof Iterable) {
            out.append('[');
            String sep = "";
            for (Object item : (Iterable<?>) value) {
                out.append(sep);
                writeTo(out, item);
                sep = ", ";
            }
            out.append(']');
        } else if (value instanceof int[]) {
            int[] items = (int[]) value;
            out.append('[');
            for (int i = 0; i < items.length; i++) {
                out.append(i == 0 ? "" : ", ").append(items[i]);
            }
            out.append(']');
        } else if (value instanceof float[]) {
            float[] items = (float[]) value;
            out.append('[');
            for (int i = 0; i < items.length; i++) {
                out.append(i == 0 ? "" : ", ");
                number(out, items[i], Float.toString(items[i]));
            }
            out.append(']');
        } else if (value instanceof double[]) {
            double[] items = (double[]) value;
            out.append('[');
            for (int i = 0; i < items.length; i++) {
                out.append(i == 0 ? "" : ", ");
                number(out, items[i], Double.toString(items[i]));
            }
            out.append(']');
        } else {
            quote(out, value.toString());
        }
    }

    private static void number(StringBuilder out, double value, String text) {
        if (Double.isNaN(value)) {
            out.append("NaN");
        } else if (Double.isInfinite(value)) {
            out.append(value > 0 ? "Infinity" : "-Infinity");
        } else {
            out.append(text);
        }
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
