/* gst-cuda-vision: the typed operators (cvop.h) of the algorithms whose
 * frames share nothing but the info: every slot holds what one frame in
 * flight needs (its scratch, its uploads, its results), made for the info
 * at create and grown at a submit into that slot; slots never share
 * memory, so frames of different slots may run at once on different CUDA
 * streams. Internal header of both backends (C and CUDA C++).
 *
 * An algorithm writes its slot's typed functions (Slot its own struct,
 * Info and Params the algorithm's, cv<algorithm>.h):
 *   CvStatus xxx_slot_create (const Info *info, Slot **slot);
 *   CvStatus xxx_slot_submit (Slot *slot, const CvFrame *frame,
 *       const Params *params, const CvExec *exec);
 *   void xxx_slot_destroy (Slot *slot);
 * and, where it has results,
 *   const Results *xxx_slot_results (Slot *slot);
 * CV_SLOT_OP_FUNCTIONS (cv_xxx_cpu, xxx_slot, Slot, CvXxxOp, Info, Params)
 * defines the operator's typed create, submit and destroy from them
 * (cv_xxx_cpu_create, ...: an operator holds max_slots slots, all made at
 * create), CV_SLOT_OP_RESULTS (cv_xxx_cpu, xxx_slot, Slot, CvXxxOp,
 * Results) its typed results; CV_OPS_TABLE (cvop-internal.h) then makes
 * the generic table from the typed functions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_OP_SLOTS_H
#define CV_OP_SLOTS_H

#include <stdlib.h>

#include "cvop.h"

typedef struct
{
  int n_slots;
  void **slot;
  void (*destroy_slot) (void *slot);
} CvSlotOp;

static inline void
cv_slot_op_destroy (void *op)
{
  CvSlotOp *o = (CvSlotOp *) op;
  int i;

  if (!o)
    return;
  for (i = 0; o->slot && i < o->n_slots; i++)
    if (o->slot[i])
      o->destroy_slot (o->slot[i]);
  free (o->slot);
  free (o);
}

/* every slot made now: a slot that cannot be made fails the create */
static inline CvStatus
cv_slot_op_create (const void *info, int max_slots, void **op,
    CvStatus (*create_slot) (const void *, void **),
    void (*destroy_slot) (void *))
{
  CvSlotOp *o;
  CvStatus st = CV_OK;
  int i;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (max_slots < 1 || max_slots > CV_OP_MAX_SLOTS)
    return CV_ERROR_INVALID_ARGUMENT;
  o = (CvSlotOp *) calloc (1, sizeof (CvSlotOp));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->destroy_slot = destroy_slot;
  o->slot = (void **) calloc ((size_t) max_slots, sizeof (void *));
  if (!o->slot) {
    free (o);
    return CV_ERROR_NO_MEMORY;
  }
  o->n_slots = max_slots;
  for (i = 0; i < max_slots && st == CV_OK; i++)
    st = create_slot (info, &o->slot[i]);
  if (st != CV_OK) {
    cv_slot_op_destroy (o);
    return st;
  }
  *op = o;
  return CV_OK;
}

/* the slot's workspace, NULL for a NULL operator or a slot out of range */
static inline void *
cv_slot_op_get (const void *op, int slot)
{
  const CvSlotOp *o = (const CvSlotOp *) op;

  return o && slot >= 0 && slot < o->n_slots ? o->slot[slot] : NULL;
}

#define CV_SLOT_OP_FUNCTIONS(prefix, slot, Slot, Op, Info, Params) \
static CvStatus \
slot ## _create_any (const void *info, void **s) \
{ \
  Slot *made = NULL; \
  CvStatus st = slot ## _create ((const Info *) info, &made); \
  *s = made; \
  return st; \
} \
static void \
slot ## _destroy_any (void *s) \
{ \
  slot ## _destroy ((Slot *) s); \
} \
CvStatus \
prefix ## _create (const Info * info, int max_slots, Op ** op) \
{ \
  void *made = NULL; \
  CvStatus st; \
  if (!op) \
    return CV_ERROR_INVALID_ARGUMENT; \
  st = cv_slot_op_create (info, max_slots, &made, slot ## _create_any, \
      slot ## _destroy_any); \
  *op = (Op *) made; \
  return st; \
} \
CvStatus \
prefix ## _submit (Op * op, int i, const CvFrame * frame, \
    const Params * params, const CvExec * exec) \
{ \
  Slot *s = (Slot *) cv_slot_op_get (op, i); \
  return s ? slot ## _submit (s, frame, params, exec) : \
      CV_ERROR_INVALID_ARGUMENT; \
} \
void \
prefix ## _destroy (Op * op) \
{ \
  cv_slot_op_destroy (op); \
}

#define CV_SLOT_OP_RESULTS(prefix, slot, Slot, Op, Results) \
const Results * \
prefix ## _results (Op * op, int i) \
{ \
  Slot *s = (Slot *) cv_slot_op_get (op, i); \
  return s ? slot ## _results (s) : NULL; \
}

#endif /* CV_OP_SLOTS_H */
