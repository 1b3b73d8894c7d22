import sys

try:
    from .cli import entry
except KeyboardInterrupt:   # Ctrl-C while the modules load: an interrupt (130), not a traceback
    sys.exit(130)

sys.exit(entry())
