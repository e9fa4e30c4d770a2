"""The trilinear similarity of two sequences, w^T [x_t; q_j; x_t * q_j]."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_skim")
class TrilinearSimilarity(keras.layers.Layer):
    """Similarity of every context word to every question word.

    S_tj = w^T [x_t; q_j; x_t * q_j] = w_x . x_t + w_q . q_j + w_xq . (x_t * q_j)

    for context vectors x_t and question vectors q_j of the same size D,
    computed without the `(B, T, J, 3D)` concatenation: the first two terms
    are matrix-vector products, the third is (x * w_xq) q^T. It is the
    attention score of the skim paper's LSTM+Attention reader (Appendix
    A.1) and of BiDAF's attention flow layer (Seo et al. 2017, eq. 1).

    Args:
        kernel_initializer: initializer of w (3D values). Defaults to
            `"glorot_uniform"`.
        **kwargs: base layer keyword arguments, such as `name`.

    Call arguments:
        context: float tensor `(batch, T, D)`.
        question: float tensor `(batch, J, D)`.

    Returns:
        float tensor `(batch, T, J)`: S.

    Example:

    >>> import numpy as np
    >>> layer = TrilinearSimilarity()
    >>> tuple(layer(np.ones((2, 5, 4), "float32"), np.ones((2, 3, 4), "float32")).shape)
    (2, 5, 3)

    Reference:
        Minjoon Seo, Aniruddha Kembhavi, Ali Farhadi, Hannaneh Hajishirzi.
        "Bidirectional Attention Flow for Machine Comprehension". ICLR 2017.
        https://arxiv.org/abs/1611.01603
    """

    def __init__(self, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)

    def build(self, context_shape, question_shape=None):
        dim = context_shape[-1]
        # One (3D, 1) kernel, as w in the papers: its rows are w_x, w_q, w_xq.
        self.kernel = self.add_weight(shape=(3 * dim, 1), initializer=self.kernel_initializer, name="kernel")

    def call(self, context, question):
        dim = ops.shape(context)[-1]
        w_x, w_q, w_xq = self.kernel[:dim, 0], self.kernel[dim : 2 * dim, 0], self.kernel[2 * dim :, 0]
        context_term = ops.expand_dims(ops.matmul(context, ops.expand_dims(w_x, -1))[..., 0], -1)
        question_term = ops.expand_dims(ops.matmul(question, ops.expand_dims(w_q, -1))[..., 0], 1)
        product_term = ops.matmul(context * w_xq, ops.transpose(question, (0, 2, 1)))
        return context_term + question_term + product_term

    def compute_output_shape(self, context_shape, question_shape):
        return (context_shape[0], context_shape[1], question_shape[1])

    def get_config(self):
        return {**super().get_config(), "kernel_initializer": keras.initializers.serialize(self.kernel_initializer)}
