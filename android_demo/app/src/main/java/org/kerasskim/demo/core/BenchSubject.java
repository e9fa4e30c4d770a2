package org.kerasskim.demo.core;

/** What {@link BenchRunner} needs of a model: {@link DemoModel} on the phone, a scripted fake in tests. */
public interface BenchSubject {
    /** The model's file, as the report names it. */
    String path();

    ModelMetadata metadata();

    /** The text as this model's own tokenizer encodes it. */
    Encoded encode(String text);

    /** One run; {@link RunResult#nanos} is what the benchmark times. */
    RunResult run(int[] tokenIds, float threshold) throws ModelException;
}
