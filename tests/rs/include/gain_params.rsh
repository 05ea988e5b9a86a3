/* tests/rs/include/gain_params.rsh - a header on a user include path. */
#define GAIN 3
#define USE_SQUARE 1
