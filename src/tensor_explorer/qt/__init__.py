"""Qt panels and the main window. Each panel takes core objects and subscribes to them."""
