"""Measurement: how strong a strategy is, apart from the solvers that make strategies.

Local Best Response (``lbr``, its action settings ``lbr_actions``, the exact
version on small games ``lbr_exact``), the blind best response of the probes
(``blind_br``), AIVAT's variance reduction (``aivat``) and the equities it
stands on (``matchup``, ``rollout``).  Measurement may stand on the solvers
(``lbr_exact`` walks the solver's public tree); the solvers never import it.
"""
