"""weft's benchmark driver as a package: cli (command line, main), options and cap (what
was asked), binaries and machine (the outside world), plan (what to run), estimate and
progress (how long), run (running it), analyse (medians), report, plots and output (what
is written). bench/run.py is the entry point."""
