"""The heads-up no-limit hold'em blueprint: action abstraction, translation, card buckets, MCCFR trainer, policy.

``actions`` (the sizes the tree has and the betting tree itself),
``translation`` (real sizes onto the tree: pseudo-harmonic), ``cards``
(EMD buckets over the hold'em bucket histories and the chance model the
trainer samples), ``mccfr`` (external-sampling MCCFR, linear weighting,
pruning, checkpoints), ``policy`` (the policy file and the play-time
table), ``header`` (what a policy's header says it fits), ``load_cache``
(the tree and the rows kept between processes), ``train`` (``python -m
acpcbot.solve hunl``) and ``spec`` (its entry in
``acpcbot.solve.blueprint_registry``).  docs/blueprint-hunl.md.
"""
