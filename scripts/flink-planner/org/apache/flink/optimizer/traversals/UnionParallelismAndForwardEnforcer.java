/*
 * recrawl: a replacement for Flink 1.19's class of the same name, put before
 * Flink's jars on the classpath of Beam's Flink job server
 * (scripts/beam-jobserver.sh compiles it; the reason is in
 * scripts/flink-planner/README.md).
 *
 * Flink's DataSet optimizer runs this visitor once over the plan
 * (Optimizer.compile). Flink's own version returns true from every preVisit,
 * so it walks every path from the sinks to the sources: a number that grows
 * exponentially with the branches and side inputs of a plan (a multi-round
 * extraction: 35 s of planning for 6 rounds in one job, still planning after
 * 28 minutes for 10). This one visits each node once. It does what Flink's
 * does at a node: a union's outgoing connections are shipped FORWARD and the
 * union takes the parallelism of its successor. The optimizer gives a union
 * exactly one successor (it splits unions with several), whose parallelism is
 * set before the union is reached from it, so the first visit sets what every
 * later visit would set again.
 */
package org.apache.flink.optimizer.traversals;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.flink.optimizer.dag.BinaryUnionNode;
import org.apache.flink.optimizer.dag.DagConnection;
import org.apache.flink.optimizer.dag.IterationNode;
import org.apache.flink.optimizer.dag.OptimizerNode;
import org.apache.flink.runtime.operators.shipping.ShipStrategyType;
import org.apache.flink.util.Visitor;

/** Forward shipping and the successor's parallelism for every union node, each node visited once. */
public class UnionParallelismAndForwardEnforcer implements Visitor<OptimizerNode> {

  private final Set<OptimizerNode> visited = Collections.newSetFromMap(new IdentityHashMap<>());

  @Override
  public boolean preVisit(OptimizerNode node) {
    if (!visited.add(node)) {
      return false;
    }
    if (node instanceof BinaryUnionNode) {
      int parallelism = -1;
      for (DagConnection out : node.getOutgoingConnections()) {
        parallelism = out.getTarget().getParallelism();
        out.setShipStrategy(ShipStrategyType.FORWARD);
      }
      node.setParallelism(parallelism);
    }
    return true;
  }

  @Override
  public void postVisit(OptimizerNode node) {
    if (node instanceof IterationNode) {
      ((IterationNode) node).acceptForStepFunction(this);
    }
  }
}
