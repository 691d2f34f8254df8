"""The end-of-night report, pure: what each game paid whom, the settle-up and why, the exports, the charts.

One module per job, each importing only the ones before it: :mod:`.model` (what a report holds),
:mod:`.why` (each payment explained), :mod:`.payments` (who pays whom), :mod:`.parts` (each game's
part of the report, added up into the night's), :mod:`.export` (the JSON and the CSV),
:mod:`.charts` and :mod:`.night_chart` (the pictures).
"""
