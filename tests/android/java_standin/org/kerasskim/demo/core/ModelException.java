package org.kerasskim.demo.core;

/** TEST-ONLY stand-in for the capi branch's class of the same name (same public API), so that
 * the core compiles on the desktop before that branch is merged. Never packaged in the app. */
public final class ModelException extends Exception {
    public ModelException(String oneLineMessage) {
        super(oneLineMessage);
    }
}
