"""Stand-ins for the outside world, speaking its real protocols: `fake_claude`, HTTP servers."""
