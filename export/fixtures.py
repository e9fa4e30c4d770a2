"""Fixture texts of the golden files: ordinary reviews and the Unicode traps on which a naive
port of the tokenizer parts ways with Python (`String.toLowerCase`, `Character.isLetter`, ...).
Every one of them must give the same tokens and ids in Java as in
`keras_skim.datasets.tokenizer.Tokenizer`."""

FIXTURES = (
    ("plain", "The movie was good and fun."),
    ("capitals_and_digits", "GREAT ACTING, 10/10 -- Best Film of 2024!"),
    ("apostrophes", "Don't miss it: 'tis rock'n'roll, the 90's' best ''quote''"),
    ("rock_n_roll", "rock'n'roll"),
    # U+0130: Java's toLowerCase gives "i" + a combining dot, Python's lower() likewise; the
    # tokenizer lower-cases A-Z only, so it is a separator.
    ("dotted_capital_i", "\u0130stanbul was GREAT; I loved it"),
    ("dotless_small_i", "\u0131nteresting film, D\u0131SNEY"),
    # U+212A KELVIN SIGN lower-cases to a Latin "k" under Unicode rules.
    ("kelvin_sign", "\u212a-pop movie at 5\u212a, OK"),
    # U+FB01 / U+FB02: ligatures fi and fl, which Unicode case folding expands.
    ("ligatures", "a \ufb01ne \ufb01lm, truly \ufb02awless"),
    ("emoji", "great \U0001f44d\U0001f3fd movie \U0001f3ac\U0001f37f fun"),
    ("full_width", "\uff27\uff32\uff25\uff21\uff34 \uff4d\uff4f\uff56\uff49\uff45 \uff01 good"),
    ("curly_quotes", "\u201cgreat\u201d movie, it\u2019s \u2018fun\u2019"),
    ("capital_sharp_s", "STRA\u1e9eE stra\u00dfe"),
    ("combining_accent", "cafe\u0301 caf\u00e9 CAFE\u0301"),
    ("greek_final_sigma", "\u039f\u0394\u039f\u03a3 good"),
    ("spaces_and_breaks", "good\u00a0movie\tbad\nfilm\u2028plot\r\nend"),
    ("zero_width", "go\u200bod mo\u200dvie"),
    ("dashes", "well-made \u2014 a so\u2013so plot - fun"),
    ("only_emoji", "\U0001f3ac\U0001f37f"),
    ("empty", ""),
    ("longer_than_max_length", " ".join(["good movie, bad plot."] * 120)),
)

# The thresholds of every golden run: 0 reads every token, 0.5 is the usual default, 1.5 skims all.
GOLDEN_THRESHOLDS = (0.0, 0.5, 1.5)
