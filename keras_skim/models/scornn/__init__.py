"""The scoRNN family (Helfrich et al., ICML 2018): the scaled-Cayley orthogonal
RNN cell, its two-learning-rate optimizer and its export emitter."""
