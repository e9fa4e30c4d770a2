"""keras-skim-presets: a presets root (each sub-folder NAME/ is one preset).

keras_skim finds this folder through the `keras_skim.presets` entry point
(see keras_skim/presets/__init__.py for where presets are looked up).
"""
