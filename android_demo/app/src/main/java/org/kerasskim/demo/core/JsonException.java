package org.kerasskim.demo.core;

/** A JSON text that cannot be read, or a value of the wrong shape; the message is one line. */
public final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    public JsonException(String message) {
        super(message);
    }
}
