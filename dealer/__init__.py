"""The bundled ACPC dealer: server, match loop, replies, logs, resume and deals (the experiment arena is ``dealer.arena``)."""
