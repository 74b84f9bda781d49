// Umbrella header for the system SQLite (Debian: libsqlite3-dev).
#include <sqlite3.h>
