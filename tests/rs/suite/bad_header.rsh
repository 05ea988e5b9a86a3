/* tests/rs/suite/bad_header.rsh - a header with an error on line 3. */
static int fine = 1;
int   broken_global =   ;
