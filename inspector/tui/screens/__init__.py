"""One screen per module: the main view, the samples gallery, help, and the dialogs."""
