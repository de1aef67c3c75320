// Package dotenv reads .env files the way python-dotenv's load_dotenv()
// does, which is how the original AgentEvolver's launcher reads the .env
// file in its working directory, so that a .env file written for it sets
// the same variables here.
//
// The grammar (python-dotenv's parser.py, followed statement by
// statement): one KEY=VALUE statement a line, an optional "export "
// prefix, blank lines and "# comment" lines ignored, a key either bare
// (no "=", "#" or white space) or in single quotes. A value is bare (the
// rest of the line, cut at the first " #" and trimmed), in single quotes
// (\\ and \' are the only escapes) or in double quotes (\\ \' \" \a \b \f
// \n \r \t \v are decoded); quoted values may span lines. A key without
// "=" has no value and sets nothing. A statement that does not parse is
// skipped with a [ParseError] and the next line is read, as
// python-dotenv skips it with a warning.
//
// Interpolation ([Resolve]): ${NAME} and ${NAME:-default} in any value,
// quoted or not, are replaced by the value of NAME, looked up in the
// environment first and then among the file's earlier statements (the
// other way round with override); $NAME without braces and $(...) are
// left alone, so shell command lines such as the launcher's
// APPWORLD_SCRIPT reach the shell intact. The default applies only when
// NAME is unset, not when it is empty.
//
// Precedence ([Load]): by default a variable already in the environment
// wins over the file (load_dotenv's override=False); with override the
// file wins.
//
// Differences, all deliberate: a file that is not UTF-8 or is larger
// than [MaxFileSize] is an error instead of a decoding failure or an
// unbounded read; a key or value the operating system cannot hold (an
// empty key, "=" in a key, a NUL byte) is reported instead of raising;
// Load reads the one file it is given and does not search parent
// directories for it (find_dotenv); PYTHON_DOTENV_DISABLED is not read.
package dotenv
