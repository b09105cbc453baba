/*
 * recrawl: a replacement for Flink 1.19's class of the same name, put before
 * Flink's jars on the classpath of Beam's Flink job server
 * (scripts/beam-jobserver.sh compiles it; the reason is in
 * scripts/flink-planner/README.md).
 *
 * Flink's DataSet optimizer runs this visitor once over the finished plan
 * (Optimizer.compile), to expand range-partitioned channels into a sampling
 * subplan. Flink's own version returns true from every preVisit, so it walks
 * every path from the sinks to the sources: exponentially many in a plan with
 * many branches and side inputs (UnionParallelismAndForwardEnforcer.java has
 * the numbers). This one visits each node once.
 *
 * Beam's Flink runner never range-partitions (it groups by hash), so a
 * PARTITION_RANGE channel cannot come from a Beam pipeline: this visitor
 * stops the compilation with a clear error instead of rewriting it.
 */
package org.apache.flink.optimizer.traversals;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.flink.optimizer.CompilerException;
import org.apache.flink.optimizer.plan.Channel;
import org.apache.flink.optimizer.plan.IterationPlanNode;
import org.apache.flink.optimizer.plan.OptimizedPlan;
import org.apache.flink.optimizer.plan.PlanNode;
import org.apache.flink.runtime.operators.shipping.ShipStrategyType;
import org.apache.flink.util.Visitor;

/** Checks that no channel is range-partitioned, each plan node visited once. */
public class RangePartitionRewriter implements Visitor<PlanNode> {

  private final Set<PlanNode> visited = Collections.newSetFromMap(new IdentityHashMap<>());

  public RangePartitionRewriter(OptimizedPlan plan) {}

  @Override
  public boolean preVisit(PlanNode node) {
    return visited.add(node);
  }

  @Override
  public void postVisit(PlanNode node) {
    if (node instanceof IterationPlanNode) {
      ((IterationPlanNode) node).acceptForStepFunction(this);
    }
    for (Channel in : node.getInputs()) {
      if (in.getShipStrategy() == ShipStrategyType.PARTITION_RANGE) {
        throw new CompilerException("range partitioning into " + node.getNodeName()
            + " is not supported by this job server: recrawl's replacement of Flink's"
            + " RangePartitionRewriter (scripts/flink-planner) only serves Beam pipelines,"
            + " which never range-partition");
      }
    }
  }
}
