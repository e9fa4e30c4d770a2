package org.kerasskim.demo.core;

/** A model that cannot be loaded or run; the message is one line that says why. */
public final class ModelException extends Exception {
    private static final long serialVersionUID = 1L;

    public ModelException(String oneLineMessage) {
        super(oneLineMessage);
    }
}
