"""What the session stores share: the SQLite toolkit (``sqlite``) and, beside it, the parts
a store module is built from. A store module reads and writes its own rows through these;
it holds no SQLite transaction, integrity check or sidecar rule of its own."""
