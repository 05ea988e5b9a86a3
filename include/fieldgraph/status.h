/* fieldgraph/status.h - status codes shared by every fieldgraph call.
 *
 * One X-macro table gives both the enum and its text, so the two never
 * drift apart.  FG_OK is 0; every other code is positive.
 */
#ifndef FIELDGRAPH_STATUS_H
#define FIELDGRAPH_STATUS_H

#define FG_STATUS_TABLE(X)                                                   \
  X(FG_OK,        "success")                                                 \
  X(FG_EINVAL,    "invalid argument")                                        \
  X(FG_ENOMEM,    "out of memory")                                           \
  X(FG_ETYPE,     "type mismatch")                                           \
  X(FG_ESHAPE,    "shape mismatch")                                          \
  X(FG_ERULE,     "operator rule violated")                                  \
  X(FG_ESTATE,    "object in an error state")                                \
  X(FG_EBUILD,    "kernel build failed")                                     \
  X(FG_EIO,       "input/output error")                                      \
  X(FG_EFORMAT,   "unsupported or corrupt file format")                      \
  X(FG_ENOTSUP,   "not supported by this backend or device")                 \
  X(FG_ENODEV,    "no such device")                                          \
  X(FG_EBACKEND,  "backend failure")                                         \
  X(FG_ECANCELED, "canceled")                                                \
  X(FG_ETIMEDOUT, "deadline passed")

typedef enum fg_status {
#define FG__STATUS_ENUM(code, text) code,
  FG_STATUS_TABLE(FG__STATUS_ENUM)
#undef FG__STATUS_ENUM
  FG_STATUS_COUNT_
} fg_status;

/* Text for a status code ("success", "type mismatch", ...); never NULL. */
const char *fg_status_str(fg_status status);

/* Name of a status code ("FG_OK", "FG_ETYPE", ...); never NULL. */
const char *fg_status_name(fg_status status);

#endif
