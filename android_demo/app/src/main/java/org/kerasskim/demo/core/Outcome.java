package org.kerasskim.demo.core;

/** A value or the {@link Problem} that kept it from being made. */
public final class Outcome<T> {
    private final T value;
    private final Problem problem;

    private Outcome(T value, Problem problem) {
        this.value = value;
        this.problem = problem;
    }

    public static <T> Outcome<T> ok(T value) {
        return new Outcome<>(value, null);
    }

    public static <T> Outcome<T> failed(Problem problem) {
        return new Outcome<>(null, problem);
    }

    public static <T> Outcome<T> failed(Problem.Kind kind, String message) {
        return new Outcome<>(null, new Problem(kind, message));
    }

    public boolean isOk() {
        return problem == null;
    }

    /** The value; only when {@link #isOk()}. */
    public T value() {
        if (problem != null) {
            throw new IllegalStateException("no value: " + problem.message);
        }
        return value;
    }

    /** The problem; null when {@link #isOk()}. */
    public Problem problem() {
        return problem;
    }

    /** The same problem under another value type. */
    public <U> Outcome<U> cast() {
        if (problem == null) {
            throw new IllegalStateException("cast of a successful outcome");
        }
        return new Outcome<>(null, problem);
    }
}
