// gpu-pipeline per sample with Nextflow: one `gpu-pipeline run` task per input BAM (sort, mark
// duplicates, recalibrate in one process); the task asks for one GPU where the executor has them.
//
//   nextflow run workflows/nextflow/main.nf --bams 'data/*.bam' --reference ref.fa \
//       --known_sites 'dbsnp.vcf.gz,mills.vcf.gz' --outdir results
nextflow.enable.dsl = 2

params.bams = null
params.reference = null
params.known_sites = ''
params.outdir = 'results'
params.device = 'auto'

process GPU_PIPELINE_RUN {
    tag "${bam.baseName}"
    publishDir "${params.outdir}/${bam.baseName}", mode: 'copy'
    cpus 16
    accelerator 1

    input:
    path bam
    path reference
    path reference_index
    path sites

    output:
    path "${bam.baseName}.*"

    script:
    def known = sites.findAll { !it.name.endsWith('.tbi') }.collect { "--known-sites ${it}" }.join(' ')
    """
    gpu-pipeline run ${bam} -R ${reference} ${known} --out-dir . --threads ${task.cpus} --device ${params.device}
    """
}

workflow {
    if (!params.bams || !params.reference) error "--bams and --reference are required"
    bams = Channel.fromPath(params.bams, checkIfExists: true)
    reference = file(params.reference, checkIfExists: true)
    fai = file("${params.reference}.fai", checkIfExists: true)
    sites = params.known_sites ? params.known_sites.tokenize(',').collect { file(it, checkIfExists: true) } : []
    site_indexes = sites.collect { file("${it}.tbi") }
    GPU_PIPELINE_RUN(bams, reference, fai, sites + site_indexes)
}
