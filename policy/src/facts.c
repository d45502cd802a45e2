// SPDX-License-Identifier: GPL-2.0
/* Gather all facts in the order their dependencies need. */
#include "facts.h"
#include "state.h"
#include "trial_record.h"

#include <string.h>

void facts_gather(struct facts *f, const struct env *env,
		  const struct policy *pol)
{
	memset(f, 0, sizeof(*f));
	facts_gather_kernel(f, env);
	facts_gather_build_default(f, env);
	facts_gather_features(f, env);
	facts_gather_memory(f, env);
	facts_predict_hugetlb(f, env);
	facts_gather_postgres(f, env, pol);
	facts_gather_live(f, env);
	facts_derive(f);
	facts_check_start(f);
	facts_gather_state(f, env);
	facts_gather_trial(f, env);
}
