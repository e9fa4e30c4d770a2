package org.kerasskim.demo.core;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Number formatting that gives the same digits as Python's {@code format(x, ".2f")}: the exact
 * binary value rounded half-to-even. {@code String.format} rounds half-up and follows the
 * device locale (a decimal comma on a German phone), which would make the app's reports differ
 * from {@code keras-skim bench}'s.
 */
public final class Fmt {
    private Fmt() {
    }

    /** Python's {@code format(value, "." + digits + "f")}. */
    public static String fixed(double value, int digits) {
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        String text = new BigDecimal(value).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
        // Python keeps the sign of a negative value that rounds to zero ("-0.00")
        if ((value < 0 || (value == 0 && 1 / value < 0)) && !text.startsWith("-")) {
            text = "-" + text;
        }
        return text;
    }

    /** Python's {@code format(value, ".0%")}. */
    public static String percent0(double value) {
        return fixed(value * 100, 0) + "%";
    }

    /** Python's {@code str()} of an optional value: "None" for null. */
    public static String py(Object value) {
        return value == null ? "None" : value.toString();
    }
}
