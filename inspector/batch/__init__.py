"""Whole datasets: stream records through the engine in parallel and report their health.

``inspector batch`` runs on one machine (``job.run_local``, worker processes) or on a
Dask cluster (``dask_runner.run_dask``); both share the reader, the per-chunk worker and
the report, so their outputs are the same bytes.
"""
