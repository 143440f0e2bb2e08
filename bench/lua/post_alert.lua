-- POST /v1/alerts with the seeds' login alert (wrk -s post_alert.lua URL/v1/alerts).
wrk.method = "POST"
wrk.body = '{"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],'
    .. '"fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}'
wrk.headers["Content-Type"] = "application/json"
