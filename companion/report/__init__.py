"""The end-of-night report, pure: what each game paid whom, the settle-up and why, the exports, the charts."""
