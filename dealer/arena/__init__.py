"""The experiment arena: self-matches, tournaments and their statistics, on top of the bundled dealer.

It imports the dealer and the strategies (the dealer core imports neither
the arena nor a strategy): ``runner`` plays a plan's matches over TCP
(``tcp``) or in memory (``memory``), ``results`` turns the dealer logs into
figures (``stats``) and pictures (``report``), ``cli`` is ``acpc-match``.
"""
